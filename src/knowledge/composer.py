"""The offline answer composer: from retrieved passages, an answer a person can use.

Steps, per question (no model; a few ms plus one question encoding):
1. cut each passage into quotable units (`knowledge.passage_units`): sentences, table rows read
   with their header, list items and whole lists, whole code blocks;
2. follow "Read X" / "See X" / "Lisez X" pointers: the pointer is never quoted, the linked
   article's units join the candidates (a pointer names where the answer is), and so do the
   chunks on either side of the top hit (the chunker may have split the answer from it);
3. score every unit against the question: encoder cosine of "heading: unit" (cached by content;
   averaged with the multilingual twin's for a question search routed to it), share of the
   question's words it holds, retrieval rank; a how-to question prefers a numbered list or a
   code block (not troubleshooting steps unless it reports a problem), and a question that asks
   a type of fact (`knowledge.answer_types`: an amount, a clock time, a duration, an age, a
   place, days "en semaine"…) a unit that states one — the first retrieved articles are searched
   whole for such units, and a compound sentence is also read clause by clause; a yes/no
   question prefers a sentence that says "no X" / "not X" / "free" about what was asked, and the
   articles the best unit names by title join the candidates (the relevance bar reads only what
   retrieval found, with the scores it always had);
4. keep the best few (≥ `KEEP_RATIO` of the best score, no near-duplicates), in document order;
5. render: a sentence opening on a pronoun carries the sentence before it (or the section's name),
   a list item its introducing sentence, a list stays a list, a code block stays fenced and whole;
   a yes/no question gets "Yes."/"No." first when the answer's polarity is clear; citations [n].
Below the relevance bar (best cosine < `MIN_SENTENCE_SIMILARITY`) the answer is an honest
"not found", in the question's language.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from knowledge.answer_types import ALL_TYPES, IDENTIFIER, asked_types, days_named, states_type
from knowledge.candidate_passages import (
    around,
    linked_articles,
    neighbours,
    runners_up,
    whole_articles,
)
from knowledge.code_versions import superseded
from knowledge.cross_language import cosine_scale
from knowledge.embedding_cache import embed_texts
from knowledge.fragments import opens_on_pronoun, refers_back, starts_lower
from knowledge.language import detect_language
from knowledge.lexical import analyse_query
from knowledge.list_context import (
    MAX_ITEMS,
    code_under_caption,
    gather_lists,
    heading_lead,
    heading_of,
    lead_in,
    render_item,
    whole_steps,
    whole_when_every_item_fits,
)
from knowledge.passage_units import Unit, capitalise, captions_code, plain, units_of
from knowledge.pointers import is_pointer, pointer_targets, strip_pointers
from knowledge.polarity import answer_polarity
from knowledge.question_kind import (
    HOWTO,
    NO,
    YES,
    YESNO,
    asked_action,
    asked_focus,
    asks_quantity,
    negates,
    polarity,
    question_kind,
    question_parts,
    states_polarity,
    states_quantity,
)
from knowledge.retrieval import Hit
from knowledge.subjectless import opens_on_verb
from relais.language import words

MIN_SENTENCE_SIMILARITY = 0.30  # MiniLM cosine: below this a unit does not answer
WEAK_MARGIN = 0.08  # an answer whose best unit clears the bar by less than this is weak (knowledge-gap report)
KEEP_RATIO = 0.80  # keep units scoring at least this share of the best one
PART_MARGIN = 0.05  # a question's part is answered by a unit beyond those chosen when it scores this much better
TWIN_SHARE = 0.6  # units of sibling sections sharing this share of their words say the same thing there
TWIN_MIN_TERMS = 4  # …when each has this many words of its own ("Open the Settings tab." is everywhere)
BARE_FACT_WORDS = 5  # a unit stating the asked fact in this few words says nothing else
FOLLOWING_UNITS = 3  # what answers the ask follows the unit echoing the situation this closely
MIN_PART_WORDS = 3  # a part of fewer words asks nothing the whole question did not ("Why, and…")
MIDDLE_RATIO = 0.70  # …and a sentence between two kept ones of a passage, scoring this share
BLOCK_BONUS = 0.08  # a how-to question prefers steps or code
QUANTITY_PENALTY = 0.10  # "how much / combien": a unit that states no number cannot be the answer
YESNO_RATIO = 0.70  # a yes/no is read from a unit scoring at least this share of the best
TYPE_BONUS = 0.06  # the unit states an expression of the asked type (an amount, a time, a duration…)
TYPE_PENALTY = 0.10  # …or states none
DAY_BONUS = 0.06  # the unit names the days the question asks about (penalty: only other days)
POLARITY_BONUS = 0.06  # yes/no question: the unit says "no X" / "not X" / "free" about what was asked
LANGUAGE_PENALTY = 0.04  # the unit's article is in another language than the question (when both exist)
BOILERPLATE_PAGES = 3  # a code block on this many pages is the docs' boilerplate, not an example
LABEL_BONUS = 0.06  # "What goes in the Authority field?": the row or item labelled "Authority:" is about it
FOCUS_BONUS = 0.04  # "quel verbe HTTP…?": the unit names what is asked for ("…avec le verbe HTTP POST")
SYMPTOM_PENALTY = 1.0  # never chosen: the output the question quotes ("« hidden due to permissions »") is the problem, not the fix
PROBLEM_PENALTY = 0.05  # a how-to question that reports no problem: troubleshooting steps are not the answer
_PROBLEM = re.compile(r"\b(?:not|n['’]t|nothing|ne|pas|problems?|issues?|errors?|fails?|failed|fix|trouble\w*|"
                      r"crash\w*|broken|missing|probl[èe]mes?|erreurs?|panne|bloqu\w*|manqu\w*|still)\b",
                      re.IGNORECASE)
_META = re.compile(r"^(?:this article|cet article|voici|here is how|these articles|ces articles|"  # the page about itself
                   r"in\s+this\s+(?:tutorial|guide|article|section),?\s+we(?:'ll|\s+will|\s+are\s+going\s+to)?\s+"
                   r"(?:walk|guide|go)\s+(?:you\s+)?through)\b", re.IGNORECASE)
# what a question quotes: «…», “…”, "…", or '…' opening after a space (not "l'API … j'ai")
_QUOTED = re.compile(r"«\s*([^»]{6,}?)\s*»|“([^”]{6,}?)”|\"([^\"]{6,}?)\"|(?:^|\s)'([^']{6,}?)'(?=[\s?.!,;:]|$)")
_ENDED = re.compile(r"[.!…:;][\"'»)\]*_`]*$")  # a line without one is a title ("Upgrading from 1.x"),
_VALUE_IN_CODE = re.compile(r":\s*`[^`]+`$")  # …unless a colon hands it its value ("…is required: `bitwarden.com`")


@dataclass
class Composed:
    text: str
    sources: list[Hit] = field(default_factory=list)
    found: bool = False
    weak: bool = False  # found, but the best unit barely clears the relevance bar


@dataclass
class _Candidate:
    unit: Unit
    hit: Hit
    rank: float
    order: int  # the unit's position among its passage's units
    siblings: list[Unit]
    score: float = 0.0
    base: float = 0.0  # the score the relevance bar reads (no answer-type terms)
    similarity: float = 0.0
    overlap: float = 0.0
    deciding: bool = False
    extra: bool = False  # found by the answer-type search of whole articles, not by retrieval
    behind: bool = False  # from a chunk ranked right behind the hits (`KnowledgeBase.runners_up`)
    led: bool = False  # a block quoted right after the sentence or item ending on ":" that introduces it
    pictured: bool = False  # a sentence ending its passage on ":" over a picture: the next passage opens on no block


def _usable(unit: Unit) -> bool:
    if not unit.text.strip():  # nothing left once its pointer went ("For more information, see X.")
        return False
    if unit.kind == "sentence":
        text = unit.text
        return (len(text) >= 12 and len(text.split()) >= 3 and not text.endswith("?")
                and bool(_ENDED.search(text) or _VALUE_IN_CODE.search(text))
                and not starts_lower(text) and not _META.match(text) and not is_pointer(unit))
    if unit.kind == "item":
        link_only = any(unit.text.rstrip(".") == label for label, _ in unit.links)  # "- [Refunds](refunds.md)"
        return len(unit.text.split()) >= 2 and not is_pointer(unit) and not link_only
    return not is_pointer(unit)  # a list of links under "Read more:"


_EMPHASISED_LINE = re.compile(r"^[ \t]*([*_]{1,2})(.+?)\1[ \t]*$", re.MULTILINE)  # "**b) Import référentiel**", "_Témoignage…_"
_UNENDED_WORDS = 8  # a line this long that is no title states something: "Le fichier ne doit pas contenir…"
_CODE_LIKE = re.compile(r"[{}]|\s=\s|\w=[\"'\w]|^(?:@|async |await |return |def |fragment )|^`[^`]+`$")


def _unended_statement(unit: Unit, titles: set[str]) -> bool:
    """A statement whose writer left off its full stop ("Le fichier ne doit pas contenir plus de 5000
    lignes et doit peser maximum 1 Mo", "`session_timeout` (int), default `300`: Duration…"): long,
    not set apart as a title (a bold or italic line, a heading), not the lead-in of a block (shown
    with it: `_render`), not code flattened into prose, and quotable otherwise. Its full stop is
    added when it is quoted (`_closed`)."""
    text = unit.text
    if unit.kind != "sentence" or len(text.split()) < _UNENDED_WORDS or text.endswith("?") or text.strip("*_ ") in titles \
            or _CODE_LIKE.search(text):
        return False
    return _usable(replace(unit, text=f"{text}."))


def _titles(kb: Any) -> set[str]:
    return set(kb.source_titles()) if kb is not None and hasattr(kb, "source_titles") else set()


def encoded_texts(chunk: Hit, kb: Any, titles: set[str] | None = None) -> list[str]:
    """Every text the composer may encode for `chunk`'s units, whatever the question: each unit's
    "heading: unit" and its typed clauses for any answer type (`knowledge.unit_cache` fills the
    vector cache with them; pass `titles` = `article_titles(kb)` when calling it per chunk)."""
    texts: list[str] = []
    for c in _units([(chunk, 0.0)], set(), titles=_titles(kb) if titles is None else titles):
        texts.append(_embed_text(c))
        texts.extend(_clauses(c, ALL_TYPES) + _code_lead(c))
    return texts


def article_titles(kb: Any) -> set[str]:
    """The base's article titles (a list item that is only one of them is a pointer, not quoted)."""
    return _titles(kb)


@lru_cache(maxsize=8192)
def _passage_units(text: str) -> tuple[tuple[Unit, ...], tuple[bool, ...]]:
    """A passage's units (pointers stripped) and which are quotable: the same chunks come back
    question after question, and cutting them again was the composer's largest own cost once
    it read the chunks ranked behind the hits (profiled, warm). Callers never mutate them."""
    units = units_of(text)
    for unit in units:
        if unit.kind in ("sentence", "item", "row"):
            unit.text = strip_pointers(unit.text)
    titles = {plain(m.group(2))[0].strip("*_ ") for m in _EMPHASISED_LINE.finditer(text)}
    titles |= {unit.lead for unit in units if unit.kind in ("code", "list")}  # a lead-in, its colon left off
    usable = [_usable(unit) or _unended_statement(unit, titles) for unit in units]
    if not any(usable):
        units, usable = _labels_listed(units)
    return tuple(units), tuple(usable)


def _labels_listed(units: list[Unit]) -> tuple[list[Unit], list[bool]]:
    """A passage of labels only ("**Demande de restitution de titre d'identité**" under "Greffe
    correctionnel", a page listing its procedures as bold links) has no sentence: its labels are
    what it says, read as the items of a list under the section's name. Elsewhere such a line is a
    title over prose, and stays unquoted."""
    block = max((u.block for u in units), default=0) + 1
    labels = [Unit("item", unit.text.strip("*_ ").strip(), unit.position, block) if _label(unit) else unit
              for unit in units]
    return labels, [_usable(unit) for unit in labels]


def _label(unit: Unit) -> bool:
    """A line unquoted only for ending on no punctuation ("Demande de restitution de titre
    d'identité"): never a question, an article's talk about itself, or a pointer."""
    text = unit.text
    return (unit.kind == "sentence" and len(text.split()) >= 2 and not _ENDED.search(text)
            and not text.endswith("?") and not starts_lower(text) and not _META.match(text) and not is_pointer(unit))


def _units(passages: list[tuple[Hit, float]], seen: set[str], wanted: Any = None,
           titles: set[str] = frozenset()) -> list[_Candidate]:  # type: ignore[assignment]
    """Candidates from passages; `wanted` (a unit predicate) marks them as found by an answer-type
    search; a list item that is only an article's title ("Related articles: - Refunds") is a pointer."""
    out: list[_Candidate] = []
    for hit, rank in passages:
        units, usable = _passage_units(hit.text)
        siblings = list(units)
        for order, unit in enumerate(units):
            key = unit.text.lower()
            if not usable[order] or key in seen or (wanted is not None and not wanted(unit)):
                continue
            if unit.kind == "item" and key.rstrip(".") in titles:
                continue
            seen.add(key)
            out.append(_Candidate(unit, hit, rank, order, siblings, extra=wanted is not None))
    return out


def _candidates(question: str, hits: list[Hit], kb: Any, wanted: Any = None,
                seen: set[str] | None = None) -> list[_Candidate]:
    passages: list[tuple[Hit, float]] = [(h, float(r)) for r, h in enumerate(hits)]
    for source, rank in pointer_targets(hits, kb):
        passages += [(chunk, rank) for chunk in kb.source_chunks(source)]
    passages += neighbours(hits, kb)
    seen = set() if seen is None else seen
    titles = _titles(kb)
    out = _units(passages, seen, titles=titles)
    have = {(h.source, h.chunk_index) for h, _ in passages}
    if wanted is not None:
        typed = whole_articles(hits, kb, have)
        out += _units(typed, seen, wanted, titles)
        have.update((h.source, h.chunk_index) for h, _ in typed)
    behind = _units(runners_up(question, hits, kb, have), seen, titles=titles)
    for c in behind:
        c.extra = c.behind = True  # read for the answer, never for the relevance bar
    return out + behind


_CLAUSE = re.compile(r"\s*;\s+|,\s+(?=(?:then|but|so|and then|puis|mais|sinon|ensuite|alors)\b)", re.IGNORECASE)


def _clauses(c: _Candidate, types: frozenset[str], asked: str = "") -> list[str]:
    """The clauses of a compound sentence that state the asked type, each read with the heading:
    the clause that answers is not drowned by the rest ("…as usual; your place is held until
    5 minutes after the start"). `asked`: the question (a name it holds is no answer)."""
    if c.unit.kind not in ("sentence", "item") or not types:
        return []
    parts = [p.strip() for p in _CLAUSE.split(c.unit.text) if len(p.split()) >= 4]
    if len(parts) < 2:
        return []
    return [f"{c.hit.heading}: {p}" if c.hit.heading else p for p in parts if states_type(p, types, asked)]


def _code_lead(c: _Candidate) -> list[str]:
    """For a how-to question, a code block is also read as the sentence that introduces it: what
    the example does is said there, while the block's own text is mostly sample values ("label=…,
    message=…") an encoder reads far from any question. Only for a how-to: a question asking a
    fact ("what is the default address?") is answered by the sentence, the example beside it is
    padding. Ranking only: the relevance bar never reads it."""
    if c.unit.kind != "code" or not c.unit.lead:
        return []
    return [f"{c.hit.heading}: {c.unit.lead}" if c.hit.heading else c.unit.lead]


def _points_back(unit: Unit) -> bool:
    """A sentence read with the one before it: it opens on a pronoun ("It costs $25"), on a
    phrase pointing back at the sentence before it in its paragraph ("Passé ce délai, …"), or on
    a verb whose subject that sentence names ("Requires both X and Y", `knowledge.subjectless`)."""
    return opens_on_pronoun(unit.text) or (bool(unit.previous) and (refers_back(unit.text) or opens_on_verb(unit.text)))


def _embed_text(c: _Candidate) -> str:
    unit = c.unit
    body = unit.text if unit.kind != "code" else unit.text[:600]
    if unit.lead and unit.kind != "sentence":
        body = f"{unit.lead} {body}"
    elif unit.kind == "sentence" and unit.previous and _points_back(unit):
        body = f"{unit.previous} {body}"  # "It costs $25" is read as what "It" stands for
    return f"{c.hit.heading}: {body}" if c.hit.heading else body


def _antecedent(c: _Candidate) -> str:
    """The text a pronoun-initial sentence needs before it (previous sentences, or the section)."""
    chain: list[str] = []
    unit = c.unit
    by_text = {u.text: u for u in c.siblings if u.kind == "sentence"}
    while _points_back(unit) and len(chain) < 2:
        previous = by_text.get(unit.previous) if unit.previous else None
        if previous is None:
            break
        chain.insert(0, previous.text)
        unit = previous
    if chain and not opens_on_pronoun(chain[0]):
        return " ".join(chain)
    return heading_lead(heading_of(c.hit))


def _render(c: _Candidate, quoted: set[str]) -> str:
    """`quoted`: texts of the units already in the answer before this one (same passage)."""
    unit = c.unit
    if unit.kind == "sentence":
        if _points_back(unit) and unit.previous not in quoted:
            before = _antecedent(c)
            text = unit.text
            if before.endswith(":"):
                text = text[:1].lower() + text[1:]
            return f"{before} {text}".strip()
        return unit.text
    if unit.kind == "row":
        return unit.text
    if unit.kind == "item":  # under its lead-in, a step with its number (knowledge.list_context)
        return render_item(unit, c.siblings, heading_of(c.hit), quoted)
    lead = lead_in(unit, heading_of(c.hit), c.siblings, quoted)
    if (unit.lead and unit.lead in quoted) or c.led:
        lead = ""  # the sentence that introduces the block is already the answer's previous sentence
    elif lead and not _ENDED.search(lead):
        lead += ":"  # "…a file located at `.chainlit/config.toml`" then its code: it introduces it
    if unit.kind == "list":
        return f"{lead}\n{unit.text}" if lead else unit.text
    return f"{lead}\n\n{unit.text}" if lead else unit.text  # code: the whole fenced block


@lru_cache(maxsize=16384)
def _terms(text: str) -> frozenset[str]:
    """A unit's stemmed words under EN and FR: the same units come back question after question,
    and analysing them again was the composer's largest own cost (profiled, warm)."""
    return frozenset(analyse_query(text, ["en", "fr"]))


def _shows(c: _Candidate, quoted: list[str]) -> bool:
    """Whether the unit is the output a question quotes (an error the API returns) or the sentence
    leading into it ("Si l'API vous répond :"): the reader has that already, the fix follows it."""
    block = c.unit
    if block.kind != "code":
        following = c.siblings[c.order + 1] if c.order + 1 < len(c.siblings) else None
        if block.kind not in ("sentence", "item") or not block.text.rstrip().endswith(":") or following is None \
                or following.kind != "code":
            return False
        block = following
    text = " ".join(block.text.lower().split())
    return any(q in text for q in quoted)


def _is_block(c: _Candidate) -> bool:
    return c.unit.kind in ("list", "code") or (c.unit.kind == "item" and bool(c.unit.lead))


class _Scorer:
    """Scores candidates against one question: the relevance score the bar reads (`base`), and
    the ranking score, which adds what the question asks for (an answer type, days, polarity)."""

    def __init__(self, question: str, embedder: Any, cache_dir: Path, kb: Any) -> None:
        self.question, self.embedder, self.cache_dir, self.kb = question, embedder, cache_dir, kb
        self.kind = question_kind(question)
        self.types = asked_types(question)
        self.typed = bool(self.types) and self.kind != YESNO  # a type of fact asked (a version, a name…), not yes/no
        self.days = days_named(question)
        self.quantity = asks_quantity(question)
        self.language = detect_language(question)
        self.problem = bool(_PROBLEM.search(question))
        self.qvec = embedder.embed_query(question)
        self.scale = cosine_scale(getattr(embedder, "name", ""))  # cosines read on MiniLM's scale
        reader = kb.question_encoder(question) if kb is not None and hasattr(kb, "question_encoder") else None
        self.twin = (reader[0], reader[1], reader[0].embed_query(question)) if reader is not None else None
        self.q_terms = set(analyse_query(question, ["en", "fr"]))
        # a how-to or a question for a name in code is answered by an example; a fact question
        # by the sentence, the example beside it is padding
        self.wants_code = self.kind == HOWTO or IDENTIFIER in self.types
        self.quoted = [" ".join(q.lower().split()) for m in _QUOTED.finditer(question)
                       for q in m.groups() if q and len(q.split()) >= 2]
        focus = asked_focus(question)
        self.focus = _terms(focus) if focus else frozenset()
        self.names = {m.group(0).lower() for m in _CAPITALISED_RUN.finditer(question)}
        self._languages: dict[str, str] = {}

    def wanted(self, unit: Unit) -> bool:
        """A unit worth looking for beyond the retrieved passages: one of the asked type."""
        if self.kind == HOWTO:
            return unit.kind == "code" or (unit.kind == "list" and unit.numbered)
        if unit.kind == "code" and IDENTIFIER in self.types:
            return True  # "which package do I install?": `pip install botbuilder-core` in a later section
        if unit.kind not in ("sentence", "item", "row"):
            return False
        if self.days and not days_named(unit.text) & self.days:
            return False
        return bool(self.days) or (bool(self.types) and self.states(unit.text))

    def states(self, text: str) -> bool:
        """Whether `text` states the type of fact asked (`answer_types.states_type`); a name the
        question holds already is no answer."""
        return states_type(text, self.types, self.question)

    def article_language(self, hit: Hit) -> str:
        if hit.source not in self._languages:
            self._languages[hit.source] = detect_language(f"{hit.title}. {hit.text[:400]}")
        return self._languages[hit.source]

    def score(self, candidates: list[_Candidate]) -> np.ndarray:
        """Set each candidate's scores; return the unit vectors (for the near-duplicate check)."""
        vectors, rows = self._measure(candidates)
        for c, (similarity, overlap, base, score) in zip(candidates, rows):
            c.similarity, c.overlap, c.base, c.score = similarity, overlap, base, score
        return vectors

    def ranking(self, candidates: list[_Candidate]) -> list[float]:
        """Each candidate's ranking score for this question, the candidates left untouched."""
        return [row[3] for row in self._measure(candidates)[1]]

    def _measure(self, candidates: list[_Candidate]) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
        """The unit vectors, and per candidate: similarity, word overlap, bar score, ranking score."""
        texts = [_embed_text(c) for c in candidates]
        owners: list[int] = []
        clause_texts: list[str] = []
        for i, c in enumerate(candidates):
            for clause in _clauses(c, self.types, self.question) + (_code_lead(c) if self.kind == HOWTO else []):
                owners.append(i)
                clause_texts.append(clause)
        vectors = embed_texts(self.embedder, texts + clause_texts, self.cache_dir)
        similarity = (vectors @ self.qvec) / self.scale
        if self.twin is not None:  # a French question on a MiniLM base: average in the encoder that reads it
            twin, scale, tvec = self.twin
            similarity = 0.5 * similarity + 0.5 * (embed_texts(twin, texts + clause_texts, self.cache_dir) @ tvec) / scale
        n = len(candidates)
        best_clause = similarity[:n].copy()
        for owner, sim in zip(owners, similarity[n:]):
            best_clause[owner] = max(best_clause[owner], sim)
        own_language = any(self.article_language(c.hit) == self.language for c in candidates)
        rows = []
        for c, sim, clause_sim in zip(candidates, similarity[:n], best_clause):
            terms = _terms(_embed_text(c))
            overlap = len(self.q_terms & terms) / len(self.q_terms) if self.q_terms else 0.0
            shape = 0.05 / (1 + c.rank)
            if self.kind == HOWTO and ((c.unit.kind == "code" and not self._boilerplate(c.unit.text))
                                       or (c.unit.kind == "list" and c.unit.numbered)):
                shape += BLOCK_BONUS
            elif c.unit.kind in ("list", "code"):
                shape -= 0.03  # a whole block answers a narrow question only when it clearly wins
            base = float(sim) + 0.15 * overlap + shape
            if self.quantity and not states_quantity(c.unit.text):
                base -= QUANTITY_PENALTY
            rows.append((float(sim), overlap, base, float(clause_sim) + 0.15 * overlap + shape + self._fit(c, own_language)))
        return vectors[:n], rows

    def _boilerplate(self, code: str) -> bool:
        """A code block written on `BOILERPLATE_PAGES` pages or more ("chainlit run app.py -w" under
        "Then run the following command:"): no page's own example, so no how-to bonus."""
        body = _FENCE_LINE.sub("", code).strip()
        return bool(body) and self.kb is not None and hasattr(self.kb, "articles_writing") \
            and self.kb.articles_writing(body) >= BOILERPLATE_PAGES

    def _fit(self, c: _Candidate, own_language: bool) -> float:
        """How well the unit fits what the question asks, beyond its words."""
        unit, fit = c.unit, 0.0
        if c.unit.kind == "code" and IDENTIFIER in self.types:
            fit += TYPE_BONUS  # "which method streams tokens?": the example writes the name
        if c.unit.kind != "code":
            if self.types:
                if self.states(unit.text):
                    fit += TYPE_BONUS
                elif self.kind != YESNO:  # "can I pay in cash?" is answered without an amount
                    fit -= TYPE_PENALTY
            elif self.quantity and not states_quantity(unit.text):
                fit -= QUANTITY_PENALTY
            if self.days:
                days = days_named(unit.text)
                fit += DAY_BONUS if days & self.days else -DAY_BONUS if days else 0.0
        if self.quoted and _shows(c, self.quoted):
            fit -= SYMPTOM_PENALTY
        if self.focus and unit.kind != "code" and self.focus <= _terms(unit.text):
            fit += FOCUS_BONUS
        if unit.kind in ("row", "item") and _label_of(unit.text) in self.names:
            fit += LABEL_BONUS
        if self.kind == YESNO and unit.kind in ("sentence", "item", "row") and states_polarity(self.question, unit.text):
            fit += POLARITY_BONUS
        if self.kind == HOWTO and not self.problem:
            section = c.hit.section.split(" > ")[-1] if c.hit.section else ""
            if unit.kind in ("list", "item", "code") and _PROBLEM.search(section):
                fit -= PROBLEM_PENALTY  # "how do I link my watch?" is not answered by "Nothing syncs"
            if unit.kind == "item" and not unit.lead and len(unit.text.split()) <= 3:
                fit -= BLOCK_BONUS  # "Garmin Connect." is not a how-to answer
        if own_language and self.article_language(c.hit) != self.language:
            fit -= LANGUAGE_PENALTY
        return fit


_FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~).*$", re.MULTILINE)
_LABELLED = re.compile(r"^[`*_]*([^:`*_\n]{1,40}?)[`*_]*\s*(?::|—)\s")


def _label_of(text: str) -> str:
    """The label a row or an item opens on ("Authority: Enter…", "`prompt`: Pre-fills…"), in
    lower case; empty when it opens on none."""
    match = _LABELLED.match(text)
    return match.group(1).strip().lower() if match else ""


def compose(question: str, hits: list[Hit], embedder: Any, cache_dir: Path, *, kb: Any = None,
            max_units: int = 3, not_found: str = "") -> Composed:
    """The answer to `question` from `hits` (see the module doc)."""
    scorer = _Scorer(question, embedder, cache_dir, kb)
    typed = scorer.kind == HOWTO or bool(scorer.types) or bool(scorer.days)
    seen: set[str] = set()
    candidates = _candidates(question, hits, kb, scorer.wanted if typed else None, seen)
    if not candidates:
        return Composed(not_found)
    kind = scorer.kind
    floor = MIN_SENTENCE_SIMILARITY
    vectors = scorer.score(candidates)
    _latest_versions(candidates)
    relevant = [c for c in candidates if not c.extra]
    top_similarity = max((c.similarity for c in relevant if c.unit.kind != "code"), default=0.0)
    best_base = max((c.base for c in relevant), default=0.0)
    if top_similarity < floor and best_base < floor + 0.1:
        return Composed(not_found)  # the bar reads what retrieval found, as it always did
    best = max(candidates, key=lambda c: c.score)
    if not best.behind:  # a chunk ranked behind the hits speaks only when it holds the best unit, or is
        # of the best unit's article (its section "Download your certificate" ranked behind the field list)
        keep = [i for i, c in enumerate(candidates) if not c.behind or c.hit.source == best.hit.source]
        kept = set(keep)
        seen.difference_update(c.unit.text.lower() for i, c in enumerate(candidates) if i not in kept)  # a linked article may hold them
        candidates, vectors = [candidates[i] for i in keep], vectors[keep]
    have = {(c.hit.source, c.hit.chunk_index) for c in candidates}
    more = around(best.hit, best.rank, kb, have)  # the best unit's passage may be cut from what follows it
    if kind == YESNO or scorer.types:
        more += linked_articles(best.unit, best.hit, best.rank, kb, have | {(h.source, h.chunk_index) for h, _ in more})
    extra = _units(more, seen, titles=_titles(kb))
    if extra:
        for c in extra:
            c.extra = True
        vectors = np.vstack([vectors, scorer.score(extra)])
        candidates += extra
        _latest_versions(candidates)
    order = np.argsort([-c.score for c in candidates])
    best = candidates[order[0]]

    chosen: list[int] = []
    budget = max_units
    for i in order:
        c = candidates[i]
        if len(chosen) >= budget or c.score < KEEP_RATIO * best.score:
            break
        if any(_near_duplicate(c, candidates[j], float(vectors[i] @ vectors[j])) for j in chosen):
            continue  # near-duplicate of a unit already kept
        if any(_overlaps(c, candidates[j]) for j in chosen):
            continue
        if chosen and c.unit.kind == "code" and candidates[chosen[0]].unit.kind != "code" and not scorer.wants_code:
            continue  # an example beside the sentence that answers a fact question is padding
        chosen.append(int(i))
        if _is_block(c):
            budget = min(budget, 2)
    chosen = _in_asked_section(chosen, candidates, scorer.q_terms)
    if scorer.types:  # each condition listed under "In order for X to be eligible:" is the answer
        chosen = whole_when_every_item_fits(chosen, candidates, lambda j: candidates[j].score >= KEEP_RATIO * best.score
                                            and scorer.states(candidates[j].unit.text))
    chosen = _focused(chosen, candidates, scorer)
    parts = [p for p in question_parts(question) if len(words(p)) >= MIN_PART_WORDS and not _vague_yes_no(p)]
    # a situation told before what is asked, when the ask has words of its own ("Where is that?" has none)
    situated = len(parts) == 1 and len(words(parts[0])) < len(words(question)) and bool(_terms(parts[0]))
    if len(parts) > 1 and chosen:  # each part may be answered further on in the best article
        have = {(c.hit.source, c.hit.chunk_index) for c in candidates}
        rest = _units(whole_articles([candidates[chosen[0]].hit], kb, have), seen, titles=_titles(kb))
        for c in rest:
            c.extra = True
        if rest:
            scorer.score(rest)
            candidates += rest
    at = {(c.hit.source, c.hit.chunk_index, c.order): i for i, c in enumerate(candidates)}  # by position
    if len(parts) > 1 and chosen:
        chosen = _each_part_answered(chosen, candidates, parts, embedder, cache_dir, kb, at)
    elif situated and chosen:  # the unit that echoes the situation told first is followed by what answers
        chosen = _each_part_answered(chosen, candidates, parts, embedder, cache_dir, kb, at, following=True)
    chosen = _spans(chosen, candidates, kind, at)
    if kind == YESNO:  # the unit that says yes or no: it says "no X"/"free" about what was asked, from the
        # best-retrieved article, with most of the question's words
        pool = [int(i) for i in order if candidates[i].score >= YESNO_RATIO * best.score
                and candidates[i].unit.kind in ("sentence", "row", "item")]
        if pool:
            def says(i: int) -> bool:  # says yes or no about what was asked, without "only"
                text = candidates[i].unit.text
                return states_polarity(question, text) and polarity(question, text) is not None

            action = asked_action(question)

            def on_action(i: int) -> bool:  # "inutile de répondre" for "Dois-je répondre…?"
                return says(i) and negates(candidates[i].unit.text, action)

            deciding = max(pool, key=lambda i: (says(i), on_action(i), -candidates[i].rank if says(i) else 0.0,
                                                round(candidates[i].overlap, 3), candidates[i].score))
            if deciding not in chosen and not any(_overlaps(candidates[deciding], candidates[j]) for j in chosen):
                chosen = chosen[: max(budget - 1, 1)] + [deciding]
            candidates[deciding].deciding = True
            chosen = _steps_of_the_answering_article(chosen, candidates, deciding)
    if kind == HOWTO:
        chosen = _with_example(chosen, candidates, question)
        chosen = whole_steps(chosen, candidates)  # a procedure is quoted whole (knowledge.list_context)
    chosen = _with_what_follows(chosen, candidates, at)
    chosen = _with_field_name(chosen, candidates, at)
    composed = _assemble(question, kind, [candidates[i] for i in chosen],
                         _documented_names([candidates[i] for i in chosen], kb), kb)
    composed.weak = top_similarity < floor + WEAK_MARGIN
    return composed


def _steps_of_the_answering_article(chosen: list[int], candidates: list[_Candidate], deciding: int) -> list[int]:
    """A yes/no is answered by the unit that says yes or no, and by the steps of its article that
    follow from it; another article's numbered steps tell another procedure ("Does re-prompt
    encrypt the item?" — "…is not an encryption mechanism", not the steps to rotate a key)."""
    source = candidates[deciding].hit.source
    return [i for i in chosen if candidates[i].hit.source == source
            or not (candidates[i].unit.kind in ("list", "item") and candidates[i].unit.numbered)]


def _each_part_answered(chosen: list[int], candidates: list[_Candidate], parts: list[str], embedder: Any,
                        cache_dir: Path, kb: Any, at: dict[tuple[str, int, int], int],
                        following: bool = False) -> list[int]:
    """A question that asks two things gets both ("How do I set that up, and which version do I
    need?"): the units chosen for the whole question lean to one part, so each part is scored on
    its own, and the unit of the chosen articles that answers it best joins the answer when it
    clearly beats every unit already chosen on that part (with the block it announces, when it
    ends on ":"). A part asking a type of fact is answered only by units stating one, and a bare
    one ("Since version 2.9.1.") counts when it closely follows a chosen unit. `following`: the
    part is the ask after a situation, answered right after the unit that echoes the situation.
    `at`: each candidate's index by (source, chunk, position)."""
    sources = {candidates[i].hit.source for i in chosen}
    out = list(chosen)
    for part in parts:
        scorer = _Scorer(part, embedder, cache_dir, kb)
        pool = [i for i, c in enumerate(candidates)
                if c.hit.source in sources and c.unit.kind != "list" and _may_answer(c, scorer)]
        if following:
            pool = [i for i in pool if any(_follows(candidates[i], candidates[j]) for j in chosen)]
        if not pool:
            continue
        scores = scorer.ranking(candidates)
        pool = _nearest_of_each_wording(pool, out, candidates)
        best = max(pool, key=lambda i: scores[i])
        covered = max((scores[i] for i in out if _may_answer(candidates[i], scorer)), default=0.0)
        # a bare fact ("Note: Since version 2.9.1.") reads close to nothing: where it stands tells what it is said of
        said_of_chosen = scorer.typed and len(words(candidates[best].unit.text)) <= BARE_FACT_WORDS \
            and any(_follows(candidates[best], candidates[j]) for j in out)
        if best in out or scores[best] < covered + PART_MARGIN \
                or not (said_of_chosen or _answers_part(candidates[best], scores[best], scorer,
                                                        any(_same_passage(candidates[best], candidates[j]) for j in out))) \
                or any(_overlaps(candidates[best], candidates[j]) or _twins(candidates[best], candidates[j])
                       for j in out):
            continue  # (its twin of a sibling section was chosen: `_in_asked_section`)
        out.append(best)
        c = candidates[best]
        block = at.get((c.hit.source, c.hit.chunk_index, c.order + 1))
        if c.unit.text.endswith(":") and block is not None and candidates[block].unit.kind in ("code", "list"):
            out.append(block)  # "Make sure everything runs smoothly:" → "chainlit hello"
    return out


def _in_asked_section(chosen: list[int], candidates: list[_Candidate], question_terms: set[str]) -> list[int]:
    """A page tells the same thing under sibling sections, worded alike but for what differs there
    ("Enable for Desktop": "…any combination of characters", "Enable for Mobile": "…any combination
    of numbers"). Only the headings tell which one the question is about: the encoder reads each
    unit with its heading ("on my phone" ↔ "Mobile"); the retrieval rank of their passages does not.
    So a chosen unit gives way to its twin of a sibling section that reads closer to the question,
    unless the question writes a word of the chosen one's heading that the twin's lacks ("I'm on
    Waterfox, the usual Firefox steps…" for "Firefox-based Browsers": a question naming both
    sections, "the Chrome add-on… in the desktop program", is read by the encoder)."""
    out: list[int] = []
    for i in chosen:
        c = candidates[i]
        twin = max((j for j, t in enumerate(candidates) if _twins(c, t)),
                   key=lambda j: candidates[j].similarity, default=None)
        kept = twin if twin is not None and _asked_rather(candidates[twin], c, question_terms) else i
        if kept not in out:  # the twin was chosen already
            out.append(kept)
    return out


def _asked_rather(twin: _Candidate, chosen: _Candidate, question_terms: set[str]) -> bool:
    """Whether the question is about `twin`'s section rather than `chosen`'s (`_in_asked_section`)."""
    own, other = _terms(_leaf(chosen.hit.section)), _terms(_leaf(twin.hit.section))
    return not question_terms & (own - other) and twin.similarity > chosen.similarity


def _leaf(section: str) -> str:
    """The last heading of a section path ("Enable Unlock with PIN > Enable for Mobile")."""
    return section.rpartition(" > ")[2]


def _twins(a: _Candidate, b: _Candidate) -> bool:
    """The same unit of a page's sibling sections, worded alike (Dice share of their words at
    least `TWIN_SHARE`: a step's own tip may differ). The sections are variants of one thing when
    their headings share a word ("Enable for Desktop", "Enable for Mobile"); two procedures opening
    on the same steps are not ("Enable Admin SDK", "Create Service Account")."""
    if a.hit.source != b.hit.source or a.unit.kind != b.unit.kind or a.unit.kind == "code" \
            or a.hit.section == b.hit.section:
        return False  # (sibling sections' examples are alike by their boilerplate)
    parent_a, _, leaf_a = a.hit.section.rpartition(" > ")
    parent_b, _, leaf_b = b.hit.section.rpartition(" > ")
    if parent_a != parent_b or not (_terms(leaf_a) & _terms(leaf_b)):
        return False
    terms_a, terms_b = _terms(a.unit.text), _terms(b.unit.text)
    return min(len(terms_a), len(terms_b)) >= TWIN_MIN_TERMS \
        and 2 * len(terms_a & terms_b) / (len(terms_a) + len(terms_b)) >= TWIN_SHARE


def _vague_yes_no(part: str) -> bool:
    """A part asking yes or no with one word of its own at most ("Est-ce normal ?", "Is that
    possible?"): it reads close to any sentence sharing that word ("…comme des champs normaux"),
    and the unit deciding yes or no for the whole question answers it."""
    return question_kind(part) == YESNO and len(_terms(part)) < 2


def _may_answer(c: _Candidate, scorer: _Scorer) -> bool:
    """Whether `c` can answer what `scorer` asks: "which version?" is answered by a unit stating one
    (not by a sentence echoing the product's name), and not read in an example unless code is asked."""
    if c.unit.kind == "code":
        return scorer.wants_code
    return not scorer.typed or scorer.states(c.unit.text)


def _follows(c: _Candidate, chosen: _Candidate) -> bool:
    """Whether `c` comes shortly after `chosen`: in the same passage, or opening the next one."""
    if c.hit.source != chosen.hit.source:
        return False
    if c.hit.chunk_index == chosen.hit.chunk_index:
        return 0 < c.order - chosen.order <= FOLLOWING_UNITS
    return c.hit.chunk_index == chosen.hit.chunk_index + 1 and c.order < FOLLOWING_UNITS


def _nearest_of_each_wording(pool: list[int], chosen: list[int], candidates: list[_Candidate]) -> list[int]:
    """Of units worded alike but for their numbers ("Note: Since version 2.9.4." under one field,
    "…2.9.5." under the next), the one nearest a chosen unit: it is said of what was chosen, and
    the others of their own neighbours, which read just as close to the question."""
    def distance(i: int) -> tuple[int, int]:
        c = candidates[i]
        near = [(abs(c.hit.chunk_index - candidates[j].hit.chunk_index), abs(c.order - candidates[j].order))
                for j in chosen if candidates[j].hit.source == c.hit.source]
        return min(near) if near else (len(candidates), 0)

    groups: dict[str, list[int]] = {}
    for i in pool:
        groups.setdefault(re.sub(r"\d+", "0", candidates[i].unit.text), []).append(i)
    return [min(group, key=distance) for group in groups.values()]


_ONE_NAME = re.compile(r"[A-Za-z_][\w.]*")  # "TextInput", "on_audio_end", "Checkbox": one word, no spaces


def _documented_names(chosen: list[_Candidate], kb: Any) -> dict[str, str]:
    """Per article, the name a reference page documents, as its code calls it (`_as_called`), when
    its quoted units leave that out. Such a page is titled by it ("on_audio_end", "TextInput",
    "Checkbox") and its sentences omit it ("Hook to react to the end of an audio recording…",
    "`placeholder` (str): …") or write it bare ("The `Video` class…" for `cl.Video`): quoted
    alone, they lack their subject or where it comes from, and "which hook / which widget…?" goes
    unanswered. The page's code must call or decorate with that name (`@cl.on_audio_end`,
    `cl.TextInput(`): a product's page ("LiteLLM", "OpenAI") is titled like one and documents no
    such name."""
    names: dict[str, str] = {}
    for source in dict.fromkeys(c.hit.source for c in chosen):
        article = [c for c in chosen if c.hit.source == source]
        title = article[0].hit.title.strip().strip("`")
        if not _ONE_NAME.fullmatch(title) or any(c.unit.kind == "code" for c in article):
            continue
        texts = [h.text for h in kb.source_chunks(source)] if kb is not None and hasattr(kb, "source_chunks") \
            else [c.hit.text for c in article]
        called = re.compile(rf"[.@]{re.escape(title)}\b|(?<![\w.]){re.escape(title)}\s*\(")
        if not any(called.search(text) for text in texts):
            continue
        name = _as_called(title, texts)  # "cl.Video": where it is imported from, as its code writes it
        if not any(name.lower() in c.unit.text.lower() for c in article):
            names[source] = name
    return names


def _as_called(title: str, texts: list[str]) -> str:
    """`title` as the page's code calls it most often, with its module ("cl.Video" for "Video",
    "cl.cache" for "cache"); the title itself when the code calls it bare."""
    qualified = Counter(m.group(1) for text in texts
                        for m in re.finditer(rf"@?\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\.{re.escape(title)})\b(?=\s*\(|\s*$|\n)",
                                             text, re.MULTILINE))
    return qualified.most_common(1)[0][0] if qualified else title


_CODE_NAME = re.compile(r"`([^`\n]+)`")
_NAME_WORD = re.compile(  # LlamaIndex, GraphQL, OAuth, on_message, cl.Step: a name written as code
    r"\b[A-Za-z]*[a-z][A-Za-z]*[A-Z]\w*|\b[A-Z]{2,}[a-z]\w*|\b[A-Za-z]\w*[_.][A-Za-z]\w*")


_CAPITALISED_RUN = re.compile(r"(?<=[\w,;] )[A-Z][\w-]*(?: [A-Z][\w-]*)*")


def _titled_names(question: str, title: str) -> set[str]:
    """The names the question writes (capitalised inside the sentence: "Embedchain", "Semantic
    Kernel") that the article is titled by, spaces dropped, as code writes them
    (`semantic_kernel`, `SemanticKernelFilter`). A name every page uses ("Chainlit") is no page's title."""
    folded = title.lower()
    return {m.group(0).lower().replace(" ", "") for m in _CAPITALISED_RUN.finditer(question)
            if m.group(0).lower() in folded}


def _with_example(chosen: list[int], candidates: list[_Candidate], question: str) -> list[int]:
    """A how-to answered by sentences alone ("Callback Handler to enable Chainlit to display
    intermediate steps") gets the example of the same article that writes a name the question or
    the answer writes (`header_auth_callback`, LlamaIndex): the page shows how in code. An
    example naming none of them shows something else ("chainlit run app.py")."""
    if not chosen or any(candidates[i].unit.kind == "code" or (candidates[i].unit.kind == "list"
                                                               and candidates[i].unit.numbered) for i in chosen):
        return chosen  # it shows how already
    written = [question, *(candidates[i].unit.text for i in chosen)]
    names = {m.group(0).lower() for m in _NAME_WORD.finditer(question)}
    names |= {m.group(1).strip().lower() for text in written for m in _CODE_NAME.finditer(text)}
    first = candidates[chosen[0]].hit
    names |= _titled_names(question, first.title)
    names = {n for n in names if len(n) >= 4}
    if not names:
        return chosen
    def writes_a_name(code: str) -> bool:  # `semantic_kernel` writes "Semantic Kernel" too
        code = code.lower()
        return any(n in code or n in code.replace("_", "") for n in names)

    examples = [i for i, c in enumerate(candidates) if c.hit.source == first.source and c.unit.kind == "code"
                and c.similarity >= MIN_SENTENCE_SIMILARITY and writes_a_name(c.unit.text)]
    if not examples:
        return chosen
    return chosen + [max(examples, key=lambda i: candidates[i].score)]


def _answers_part(c: _Candidate, part_score: float, scorer: _Scorer, beside_chosen: bool = False) -> bool:
    """Whether a unit reads as an answer to one part of a question. A part is short and leans on
    the rest of the question ("…and what values does the new option take?", "Which variable renames
    it?"), so its cosines run low: a unit stating the kind of fact the part asks for (a version, the
    values a setting takes…), or standing in a passage quoted for the question (`beside_chosen`:
    said of the same thing), passes when it reads close enough to the whole question."""
    if part_score >= MIN_SENTENCE_SIMILARITY:
        return True
    return c.unit.kind != "code" and c.similarity >= MIN_SENTENCE_SIMILARITY \
        and (beside_chosen or (bool(scorer.types) and scorer.states(c.unit.text)))


def _same_passage(a: _Candidate, b: _Candidate) -> bool:
    """Whether `a` and `b` are units of one passage (one chunk of one article)."""
    return a.hit.source == b.hit.source and a.hit.chunk_index == b.hit.chunk_index


def _focused(chosen: list[int], candidates: list[_Candidate], scorer: _Scorer) -> list[int]:
    """The chosen units that serve the question: when a unit names what a "which X" question asks
    for, units of other articles that do not are padding ("…avec le verbe HTTP POST" answers;
    another page's setup steps do not); when the best unit states the asked type of fact (an
    amount, a duration…), so do units of other articles that state none. An example answering a
    question that asks a name written as code writes it ("which hook…?": `useAuth()`)."""
    if scorer.focus:
        naming = {candidates[i].hit.source for i in chosen
                  if (candidates[i].unit.kind == "code" and IDENTIFIER in scorer.types)
                  or (candidates[i].unit.kind != "code" and scorer.focus <= _terms(candidates[i].unit.text))}
        if naming:
            chosen = [i for i in chosen if candidates[i].hit.source in naming]
    if chosen and scorer.typed:
        best = candidates[chosen[0]]
        if best.unit.kind != "code" and scorer.states(best.unit.text):
            # "combien d'argent…?" answered by "…25 € par formulaire": another article's sentence
            # stating no amount is padding
            chosen = [i for i in chosen if candidates[i].hit.source == best.hit.source
                      or scorer.states(candidates[i].unit.text)]
    return chosen


_IMPERATIVE = re.compile(r"^(?:[A-ZÀ-Ý][a-zà-ÿ]+ez\b|[A-Z][a-z]+(?<!s) (?:the|your|a|an|on|to|in|into)\b)")
_NEXT_STEP = re.compile(r"^(?:then|next|after\s+that|afterwards|finally|lastly|ensuite|puis|enfin|"
                        r"une\s+fois\s+(?:cela|ceci)\s+fait)\b", re.IGNORECASE)
_SAYS_WHAT_TO_DO = re.compile(  # after a sentence saying what is not done, or what needs doing: how
    r"^(?:instead|rather|à\s+la\s+place|au\s+lieu\s+de\s+cela|plutôt|"
    r"to\s+do\s+(?:so|this|that)|pour\s+(?:ce\s+faire|cela|le\s+faire)|"
    r"(?:however|but|cependant|toutefois|mais),?\s+(?:you|vous)\s+(?:can|may|pouvez)|"
    r"you\s+can\s+(?:however|also\s+instead)|vous\s+pouvez\s+(?:toutefois|cependant)|"
    r"in\s+(?:that|this|such\s+a)\s+case|if\s+so|dans\s+(?:ce|un\s+tel)\s+cas|le\s+cas\s+échéant|"
    r"si\s+c'est\s+le\s+cas)\b", re.IGNORECASE)
_STEPS_BACK = 3  # at most this many units before a "Then…" sentence: a block and its lead-in


def _spans(chosen: list[int], candidates: list[_Candidate], kind: str,
           at: dict[tuple[str, int, int], int]) -> list[int]:
    """The sentences a reader needs between and after the chosen ones: a sentence lying between
    two chosen sentences of one passage (quoting the first and third skipped the one that acts or
    restricts: "…partager votre démarche. [À cette fin, cliquez sur « Envoyer une copie ».] Il
    faut…", "Determines the size of the chart. [Only works with display="inline".] Choices are…");
    for a how-to question, the instruction right after the best sentence ("…il est possible de
    repasser le dossier en instruction." → "Cliquez sur le bouton « Repasser en instruction »"),
    and the block a chosen "Then…" sentence goes on (`_steps_before`). `at`: each candidate's index
    by (source, chunk, position)."""
    howto = kind == HOWTO
    best_source = candidates[chosen[0]].hit.source if chosen and howto else ""
    added = [j for i in chosen if candidates[i].hit.source == best_source for j in _steps_before(i, candidates, at)]
    for i in chosen:
        c = candidates[i]
        if c.unit.kind != "sentence":
            continue
        key = (c.hit.source, c.hit.chunk_index)
        middle, after = at.get((*key, c.order + 1)), at.get((*key, c.order + 2))
        if middle is None or middle in chosen or candidates[middle].unit.kind != "sentence":
            continue
        between = after in chosen and candidates[after].unit.kind == "sentence"
        if between and not howto:  # …when it reads close to the question, not a digression
            between = candidates[middle].score >= MIDDLE_RATIO * candidates[chosen[0]].score
        if between or (howto and i == chosen[0] and _IMPERATIVE.match(candidates[middle].unit.text)):
            added.append(middle)
    return chosen + [i for i in dict.fromkeys(added)]


def _with_what_follows(chosen: list[int], candidates: list[_Candidate],
                       at: dict[tuple[str, int, int], int]) -> list[int]:
    """The unit a chosen one hands over to, right after it in its passage:
    - a list item ending on ":" introduces the code block or list after it ("5. …add the
      following to `policies.json`:"): quoted without it, it promises what it does not give (a
      sentence ending so is dropped instead when its block is not chosen: `gather_lists`);
    - a sentence followed by one opening on "Instead" / "À la place" says what not to do, and the
      next one what to do ("…you should not put your own keys in the `.env` file. Instead, use
      `user_env`…"); so does one followed by "To do so," / "Pour ce faire," ("…you need to
      regenerate them. To do so, remove the `.chainlit/translations` folder…") or by "However,
      you can" ("The default avatar is the favicon. However, you can… in `/public/avatars`");
    - the best unit, a sentence followed by a bare "For example:", comes with the block of examples;
    - the best unit, a sentence ending on ":", comes with the block it introduces, or with the
      sentence after it: the screenshot the colon announced is gone, and that sentence is the next step."""
    out = list(chosen)
    for i in chosen:
        c = candidates[i]
        after = next((k for k in range(c.order + 1, len(c.siblings))
                      if not is_pointer(c.siblings[k]) and not captions_code(c.siblings, k)), None)
        following = c.siblings[after] if after is not None else None  # "See how to … [here]." says nothing
        if c.unit.kind == "item" and c.unit.text.rstrip().endswith(":"):
            # the next unit that is not the item's own list (a passage lists its items, then the list)
            order = next((k for k in range(c.order + 1, len(c.siblings)) if not (
                c.siblings[k].kind == "list" and c.siblings[k].block == c.unit.block)), None)
            if order is not None and c.siblings[order].kind != "code":
                order = next((k for k, u in enumerate(c.siblings) if u.kind == "list" and u.lead == c.unit.text), None)
        elif c.unit.kind == "sentence" and following is not None and following.kind == "sentence" \
                and _SAYS_WHAT_TO_DO.match(following.text):
            order = after
        elif i == chosen[0] and c.unit.kind == "sentence" and following is not None and following.kind == "sentence" \
                and _ANNOUNCING.fullmatch(following.text) and following.text != ":":
            # "…as a query string. For example:" then the addresses: the answer made concrete
            order = next((k for k in range(after + 1, len(c.siblings)) if c.siblings[k].kind in ("code", "list")
                          and c.siblings[k].lead == following.text), None)
        elif i == chosen[0] and c.unit.kind == "sentence" and c.unit.text.rstrip().endswith(":") \
                and following is not None and following.kind in ("code", "list", "sentence"):
            # the unit that answers best introduces a block: the block comes with it; a sentence right
            # after it follows the picture the colon announced ("…select the Add App button:" [screenshot]
            # "In the search bar, type `saml test connector`…")
            order = after
        else:
            continue
        j = at.get((c.hit.source, c.hit.chunk_index, order)) if order is not None else None
        if j is not None and j not in out:
            candidates[j].led = candidates[j].unit.kind in ("code", "list") and candidates[j].unit.lead not in (
                c.unit.text, following.text if following is not None else None)
            out.insert(out.index(i) + 1, j)
    return out


FIELD_REST = 2  # a field's description quoted whole after its name when it goes on this many sentences or fewer
_FIELD_LABEL = re.compile(r"^`([^`\n]+)`(?:\s*\([^)\n]*\))?(?:,[^:\n]{0,60})?:\s")  # "`favorites` (bool), default `false`: …"


def _with_field_name(chosen: list[int], candidates: list[_Candidate],
                     at: dict[tuple[str, int, int], int]) -> list[int]:
    """A sentence further on in a field's description ("When enabled, users can star their own
    messages…") comes after the sentence that names the field ("`favorites` (bool), default
    `false`: Enable favorite messages."): quoted alone, it describes a setting the reader cannot
    find. The other way round, the sentence naming a field comes with the rest of its description
    when that is short (`FIELD_REST` sentences): "`unsafe_allow_html` (bool), default `false`:
    Process and display HTML in messages." is half an answer without "This can be a security risk."
    `at`: each candidate's index by (source, chunk, position)."""
    out = list(chosen)
    for i in chosen:
        c = candidates[i]
        if c.unit.kind != "sentence":
            continue
        if _FIELD_LABEL.match(c.unit.text):  # the rest of a short description goes with it
            rest = [k for k, u in enumerate(c.siblings) if u.block == c.unit.block and k > c.order]
            if len(rest) <= FIELD_REST and all(c.siblings[k].kind == "sentence" for k in rest):
                found = [at.get((c.hit.source, c.hit.chunk_index, k)) for k in rest]
                after = out.index(i) + 1
                out[after:after] = [j for j in found if j is not None and j not in out]
            continue
        first = next((k for k, u in enumerate(c.siblings) if u.block == c.unit.block), c.order)
        label = _FIELD_LABEL.match(c.siblings[first].text) if first < c.order else None
        if label is None or label.group(1).lower() in c.unit.text.lower():
            continue
        j = at.get((c.hit.source, c.hit.chunk_index, first))
        if j is not None and j not in out:
            out.insert(out.index(i), j)
    return out


def _steps_before(chosen: int, candidates: list[_Candidate], at: dict[tuple[str, int, int], int]) -> list[int]:
    """A chosen sentence (of the best unit's article) that goes on a procedure written as prose
    ("Then run the script from your IDE.") needs the step before it: the code block or list just
    above it and the sentence that leads into that block ("In your main script add:"); quoted
    alone, "Then" follows nothing. `at`: each candidate's index by (source, chunk, position)."""
    c = candidates[chosen]
    if c.unit.kind != "sentence" or not _NEXT_STEP.match(c.unit.text):
        return []
    found: list[int] = []
    order, taken = c.order - 1, 0
    while order >= 0 and taken < _STEPS_BACK:
        unit = c.siblings[order]
        index = at.get((c.hit.source, c.hit.chunk_index, order))
        order -= 1
        if unit.kind == "item":
            continue  # a list's items come before the list itself: the list is quoted whole
        if unit.kind == "sentence" and not unit.text.endswith(":"):
            break  # the step before is prose: what "Then" follows is not a block
        if index is None:
            break
        found.insert(0, index)
        taken += 1
        if unit.kind == "sentence":
            break  # the lead-in of the block: the step starts there
    return found if any(candidates[i].unit.kind in ("code", "list") for i in found) else []


def _latest_versions(candidates: list[_Candidate]) -> None:
    """An example rewritten further on in its section (`knowledge.code_versions`) is never quoted:
    its latest version takes its score, so it ranks where the first one would have."""
    codes = [c for c in candidates if c.unit.kind == "code"]
    if len(codes) < 2:
        return
    blocks = [((c.hit.source, c.hit.section), c.unit.text, (c.hit.chunk_index, c.order)) for c in codes]
    for early, late in superseded(blocks).items():
        codes[late].score = max(codes[late].score, codes[early].score)
        codes[early].score = -1.0


def _with_announced_code(chosen: list[_Candidate], kb: Any = None) -> list[_Candidate]:
    """A list quoted to its last step, when that step announces what comes next ("6. Select
    Show... and add the following:"), comes with the code block right after it (in the next
    passage when the list ends its own): the value to enter is there (an extension's ID), and
    the step alone promises what it does not give."""
    out: list[_Candidate] = []
    for c in chosen:
        out.append(c)
        if c.unit.kind != "list" or not c.unit.items or not c.unit.items[-1].endswith(":"):
            continue
        listed = [u for u in c.siblings if u.kind == "item" and u.block == c.unit.block]
        if not listed or c.unit.items[-1] != listed[-1].text:
            continue  # quoted to a middle step ending on ":" ("2. From the unzipped directory:")
        found = _block_after(c, kb)
        if found is not None and all(o.unit.text != found[1].text for o in chosen):
            hit, block = found
            out.append(replace(c, unit=block, hit=hit, order=block.position, led=True))
    return out


def _step_numbers(unit: Unit, siblings: list[Unit]) -> list[int]:
    """The numbers of list `unit`'s steps (its top-level items), as its source writes them."""
    return [int(u.marker.rstrip(".)")) for u in siblings
            if u.kind == "item" and u.block == unit.block and u.marker.rstrip(".)").isdigit()]


def _with_rest_of_procedure(chosen: list[_Candidate], kb: Any) -> list[_Candidate]:
    """A numbered list quoted to the end of its passage, whose steps go on in the next passage
    ("…2. check the Enable Browser Integration box." then "3. In your Browser, navigate to the
    Extensions manager…"), comes with them: the chunker cut the procedure, not its writer. The
    next passages' lists join the answer while their numbering goes on, up to `MAX_ITEMS` steps
    in all; `_assemble` quotes them as one list (`_continues`)."""
    out = list(chosen)
    quoted = {(c.hit.source, c.hit.chunk_index, c.unit.block) for c in chosen if c.unit.kind in ("list", "item")}
    for c in chosen:
        if c.unit.kind != "list" or not c.unit.numbered:
            continue
        current, steps = c, _step_numbers(c.unit, c.siblings)
        while steps and all(u.block <= current.unit.block for u in current.siblings):  # it ends its passage
            opening = _opening_of_next_passage(current, kb)
            if opening is None:
                break
            following, units, first = opening
            rest = next((u for u in units if u.kind == "list" and u.block == units[first].block), None)
            more = _step_numbers(rest, units) if rest is not None and rest.numbered else []
            if not more or more[0] != steps[-1] + 1 or len(steps) + len(more) > MAX_ITEMS:
                break
            current, steps = replace(c, unit=rest, hit=following, order=rest.position, siblings=units), steps + more
            if (following.source, following.chunk_index, rest.block) not in quoted:
                out.append(current)
    return out


def _one_telling(chosen: list[_Candidate]) -> list[_Candidate]:
    """One procedure told by two articles is quoted once: a list sharing a step with a list of
    another article quoted before it ("1. On the My Vault page, select the Add Item button.")
    would show that step twice; and a line another article's quoted list holds (articles copy
    lines from each other) is read in that list."""
    lists: list[_Candidate] = []  # the lists quoted
    for c in chosen:
        if c.unit.kind == "list" and not any(o.hit.source != c.hit.source and set(o.unit.items) & set(c.unit.items)
                                             for o in lists):
            lists.append(c)
    return [c for c in chosen if any(c is o for o in lists) or (c.unit.kind != "list" and not any(
        o.hit.source != c.hit.source and c.unit.text in o.unit.items for o in lists))]


def _with_block_of_next_passage(chosen: list[_Candidate], kb: Any) -> list[_Candidate]:
    """The unit that answers best, a sentence ending its passage on ":" ("Vous pouvez ensuite
    paramétrer le type de rendez-vous :"), comes with the list or code block that opens the next
    passage: the types it announces are there, and the lead-in alone says nothing (it would be
    dropped, and the answer left to lesser units). When the next passage opens on no block (a new
    section, or no passage), what the colon announced was a picture: the sentence is a whole
    statement, kept and closed (`pictured`)."""
    if not chosen or kb is None:
        return chosen
    best = chosen[0]
    if best.unit.kind != "sentence" or not best.unit.text.endswith(":") or best.order + 1 < len(best.siblings):
        return chosen
    opening = _opening_of_next_passage(best, kb)
    if opening is None or opening[1][opening[2]].kind not in ("item", "list", "code"):
        return [replace(best, pictured=True), *chosen[1:]]
    following, units, first = opening
    block = units[first].block
    whole = next((u for u in units if u.block == block and u.kind in ("list", "code")), units[first])
    if any(c.hit.source == following.source and c.unit.text == whole.text for c in chosen):
        return chosen
    unit = replace(whole, lead=best.unit.text)
    siblings = [replace(u, lead=best.unit.text) if u.block == block else u for u in units]
    return [best, replace(best, unit=unit, hit=following, order=unit.position, siblings=siblings), *chosen[1:]]


def _opening_of_next_passage(c: _Candidate, kb: Any) -> tuple[Hit, list[Unit], int] | None:
    """The passage right after `c`'s in its article (`candidate_passages.around`), its units, and
    the position of the first one the passages' overlap does not repeat from `c`'s passage (a
    list's items, its lead-in); None when there is no such passage or unit."""
    following = next((h for h, _ in around(c.hit, 0.0, kb, set()) if h.chunk_index == c.hit.chunk_index + 1), None)
    if following is None:
        return None
    units = _passage_units(following.text)[0]
    seen = {u.text for u in c.siblings}
    first = next((k for k, u in enumerate(units)
                  if not (u.text in seen or u.kind == "list" and set(u.items) <= seen)), None)
    return (following, units, first) if first is not None else None


def _block_after(c: _Candidate, kb: Any) -> tuple[Hit, Unit] | None:
    """The code block right after list `c`: the next unit of its passage, or when the list ends
    the passage, the first block of the next one past the list's own items repeated there (the
    passages overlap)."""
    later = next((u for u in c.siblings if u.block > c.unit.block), None)
    if later is not None:
        return (c.hit, later) if later.kind == "code" else None
    opening = _opening_of_next_passage(c, kb)
    if opening is None:
        return None
    following, units, first = opening
    return (following, units[first]) if units[first].kind == "code" else None


def _introduces(c: _Candidate, block: _Candidate) -> bool:
    """Whether sentence `c` is the lead-in of `block`, quoted right after it: it keeps its colon.
    A lead-in kept over what the page showed instead (a screenshot: `list_context.gather_lists`)
    ends on a full stop, even when another lead-in and its list follow it. A tab's caption between
    the two ("Bash") does not part them."""
    if not _is_block(block) or block.hit.source != c.hit.source:
        return False
    return block.unit.lead == c.unit.text or code_under_caption(c) == (block.hit.source, block.hit.chunk_index, block.order)


def _near_duplicate(a: _Candidate, b: _Candidate, cosine: float) -> bool:
    """The same statement twice. Units are encoded with their heading, so under one question
    heading (a FAQ's "Q: What payment options do you accept…?") two different sentences read
    alike: there, the words decide. A table row is encoded with the sentence that introduces the
    table, so it reads like that sentence; the two are the answer's two halves ("three columns
    have been added since 2.0.0:" then "`modes` — Since: 2.9.4"), never a duplicate. (A list or
    an item shows its lead-in itself.)"""
    if any(x.unit.kind == "row" and x.unit.lead and x.unit.lead == y.unit.text for x, y in ((a, b), (b, a))):
        return False
    prose = a.unit.kind in ("sentence", "item") and b.unit.kind in ("sentence", "item")
    if not prose or a.hit.heading != b.hit.heading or not a.hit.section.rstrip().endswith("?"):
        return cosine > 0.9  # the rows of one table stay one answer
    terms_a, terms_b = _terms(a.unit.text), _terms(b.unit.text)
    return bool(terms_a and terms_b) and len(terms_a & terms_b) / len(terms_a | terms_b) > 0.8


def _overlaps(a: _Candidate, b: _Candidate) -> bool:
    """The same block quoted twice (an item and its whole list, a sentence and its antecedent)."""
    if not _same_passage(a, b):
        return a.hit.source == b.hit.source and a.unit.text == b.unit.text
    return a.unit.block == b.unit.block and "list" in (a.unit.kind, b.unit.kind)


_ANNOUNCING = re.compile(r"(?:,?\s*(?:for example|for instance|e\.g\.|such as|par exemple|comme|tels? que|"
                         r"telles? que))?\s*:$", re.IGNORECASE)


def _closed(sentence: str) -> str:
    """A sentence announcing what the page showed next ("…in a specific order, for example:"), quoted
    without it: it ends there, or it reads as a lead-in to nothing. One ending on the value its colon
    hands over ("…is required: `bitwarden.com`") gets its full stop."""
    if _VALUE_IN_CODE.search(sentence) or not (_ENDED.search(sentence) or sentence.endswith("?")):
        return f"{sentence}."  # …and so does a statement its writer left unended (`_unended_statement`)
    return _ANNOUNCING.sub(".", sentence) if sentence.endswith(":") else sentence


def _continues(c: _Candidate, lead: str, previous_list: tuple[str, int, str] | None) -> bool:
    """Whether a list part goes on the list quoted just before it: the same lead-in in the same or
    the next passage, or the next passage of the same article, which opens mid-list under its
    section's name only. Two lists far apart that open the same way ("Firefox:" under Windows,
    then under macOS) are two lists: merged, their items read "5." then "4."."""
    if previous_list is None or previous_list[0] != c.hit.source:
        return False
    next_passage = c.hit.chunk_index == previous_list[1] + 1
    return (lead == previous_list[2] and (next_passage or c.hit.chunk_index == previous_list[1])) or (
        not c.unit.lead and next_passage)


def _citation(part: str) -> str:
    match = re.search(r"\[\d+\]$", part)
    return match.group(0) if match else "\0"


def _assemble(question: str, kind: str, chosen: list[_Candidate], names: dict[str, str] | None = None,
              kb: Any = None) -> Composed:
    """The answer's text: `chosen` in reading order, one citation per run of a source; the units
    of a reference page open on the name it documents (`names`, by source: `_documented_names`)."""
    language = detect_language(question)
    prefix = ""
    deciding = [c for c in chosen if c.deciding]
    if kind == YESNO and deciding:
        d = deciding[0]
        answer = answer_polarity(question, d.unit.text, [c.unit.text for c in chosen],  # knowledge.polarity
                                 f"{d.hit.title}. {d.hit.section}", polarity(question, d.unit.text),
                                 before=d.unit.lead or d.unit.previous)
        prefix = {"yes": YES, "no": NO}.get(answer or "", {}).get(language, "")
    chosen = _with_block_of_next_passage(chosen, kb)
    # a list once, whole, under its lead-in (knowledge.list_context), its steps the chunker cut off included
    chosen = _with_announced_code(_with_rest_of_procedure(_one_telling(gather_lists(chosen)), kb), kb)
    source_rank: dict[str, float] = {}
    for c in sorted(chosen, key=lambda c: c.rank):
        source_rank.setdefault(c.hit.source, len(source_rank))
    chosen.sort(key=lambda c: (source_rank[c.hit.source], c.hit.chunk_index, c.order))
    sources: list[Hit] = []
    parts: list[tuple[str, bool]] = []
    goes_on: set[int] = set()  # parts that go on the list quoted just before them
    quoted: set[str] = set()
    previous_list: tuple[str, int, str] | None = None
    for k, c in enumerate(chosen):
        number = next((n for n, s in enumerate(sources, 1) if s.source == c.hit.source), 0)
        if not number:
            sources.append(c.hit)
            number = len(sources)
        rendered = _render(c, quoted)
        if names and c.hit.source in names and not any(p.hit.source == c.hit.source for p in chosen[:k]):
            rendered = f"`{names[c.hit.source]}`: {rendered}"  # the article's first part
        quoted.add(c.unit.text)
        if c.unit.lead and c.unit.lead in rendered:
            quoted.add(c.unit.lead)  # two articles' examples under one lead-in ("Voici un exemple complet…"): it once
        if c.unit.kind == "sentence" and not (k + 1 < len(chosen) and _introduces(c, chosen[k + 1])):
            rendered = _closed(rendered)
        elif c.unit.kind == "list" and k + 1 < len(chosen) and chosen[k + 1].led and rendered.endswith("."):
            rendered = f"{rendered[:-1]}:"  # its last step hands over to the block quoted right after it
        lead, _, rest = rendered.partition("\n")
        listed = bool(rest) and lead.endswith(":") and c.unit.kind in ("item", "list")
        if listed and _continues(c, lead, previous_list):
            rendered = rest.lstrip("\n")  # one list cut in two passages: its lead-in once
            goes_on.add(len(parts))
        if c.led:
            goes_on.add(len(parts))  # the block right under the sentence that introduces it, one citation
        previous_list = (c.hit.source, c.hit.chunk_index, lead) if listed else None
        block = "\n" in rendered
        parts.append((f"{rendered}\n[{number}]" if c.unit.kind == "code" else f"{rendered} [{number}]", block))
    text = ""
    for i, (part, block) in enumerate(parts):
        joiner = "\n\n" if block or (i and parts[i - 1][1]) else " "
        if i in goes_on and text.endswith(_citation(part)):
            text, joiner = text[: -len(_citation(part))].rstrip(), "\n"
        if text and joiner == " " and text.endswith(_citation(part)):
            text = text[: -len(_citation(part))].rstrip()  # one citation for a run of one source
        text = f"{text}{joiner}{part}" if text else part
    if prefix:
        text = f"{prefix} {capitalise(text)}" if not parts[0][1] else f"{prefix}\n\n{text}"
    return Composed(text, sources, True)
