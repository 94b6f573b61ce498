"""Does the knowledge base mention what the question is about? (the "not found" that is right)

A near-domain question can retrieve passages that read close to it ("How do I cancel my Norton
subscription?" finds the base's own cancel steps) although its subject is absent from every
document. Two signals from the base's own vocabulary (its lexical index: stems and document
frequencies), no word lists:

- a *name* the base never uses: a capitalised word inside the sentence (a brand, product, place)
  or a word with inner capitals ("PlayStation", "Wi-Fi") whose stem no document holds, and
  that no retrieved passage speaks of in other words. A passage sentence speaks of the name
  when the name alone reads close to it (cosine ≥ `NAME_RELATED`: "Christmas" ~ "December 25")
  *and* the name pulls it towards the question: the sentence's cosine to the question gains at
  least `NAME_PULL` over its cosine to the question without the name. A single word scores
  ~0.25-0.3 against unrelated text on MiniLM ("Norton" ~ "Log in to your Web Vault"), so the
  first test alone lets brands through; the second asks whether the name is what makes the
  passage fit (measured: passages about the name gain ~0.17, "Christmas" ~ "closed on December
  25"; on the sixteen blind sets' off-topic questions near-domain names gain up to 0.12:
  "Bitdefender", "SurrealDB", "Datadog", "SNCF"; no answerable question's name passes by this
  test alone). Only lines of `MIN_SPEAKING_WORDS` words or more speak: a two-word line of a list
  of platforms ("On Fly.io") moves with any word taken out of the question ("Webex" pulls it by 0.12);
- a name of known words the base never writes together: two or more capitalised words in a row
  ("Apple Watch", "France Travail") whose phrase no chunk's title, section or text holds, where
  the base says "Apple" and "watch" apart; then judged like a missing name (title-cased
  questions are left out: there every word is capitalised), or spoken of when a retrieved
  sentence reads close to the phrase itself (cosine ≥ `PHRASE_RELATED`): "Google API" ~ "select
  APIs & Services → Library" (0.42), where the rest of the question already carries the pull;
  measured on every set, near-domain phrases the base lacks read ≤ 0.29 ("Pass Culture", "Apple
  Watch" 0.22) and the answerable ones ≥ 0.39;
- a name the retrieved passages write otherwise: a missing name is no missing subject when a
  retrieved passage writes a name (a capitalised word) the encoder reads as the same thing
  (cosine ≥ `NAME_ALIAS`): "iPhone" ~ "iOS" (0.78), "Windows PC" ~ "Windows" (0.80), "Google API"
  ~ "API" (0.76). Measured on every set: the closest such word of an off-topic name reads ≤ 0.67
  ("Cloudflare" ~ "Cloud", "Samsung" ~ "Android" 0.62, "Apple Watch" ~ "Apple" 0.61). Only the
  passages' own names count: over the whole base's vocabulary, "PlayStation" ~ "ps1" (0.73);
- words of its own the base lacks and nothing retrieved shares a word with it: two or more of
  its content stems no document holds, and no retrieved passage holds any of its stems — what
  retrieval found only reads close to it ("une procuration pour voter aux élections" on a base
  that never says either finds a list of other procedures). Measured on every eval set and 240
  article headings asked as questions: no answerable question was without a shared word;
- most of the question's content missing: the idf-weighted share of its content stems that
  some document holds is below `MIN_KNOWN_SHARE` (a stem no document holds weighs the most, as
  the rarest word does), e.g. "Do you have a sauna?" on a base that never says "sauna".

A word the base lacks but that is a plain word among known ones ("can I put a file in the bin?")
is left to retrieval and the encoder: paraphrases are not subjects.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from knowledge.embedding_cache import embed_texts
from knowledge.language import detect_language, fold_accents
from knowledge.lexical import analyse
from knowledge.passage_units import units_of

MIN_KNOWN_SHARE = 0.15  # idf-weighted share of the question's content stems the base must hold
MIN_SHARED_WITH_NAME = 0.12  # a question naming what the base lacks: share of its words the best passage must hold
MIN_ABSENT_WORDS = 2  # …and how many stems no document holds make a question with no word in common "not found"
NAME_RELATED = 0.2  # encoder cosine from which a passage speaks of a missing name ("Christmas" ~ "December 25")
MIN_ACRONYM = 3  # an all-capitals word this long may name an organisation ("CROUS"); "TV", "PC" are things
MIN_PREFIX = 5  # a name's stem this long that starts a word of the base names that word ("postgr")
NAME_PULL = 0.14  # …and how much closer to the question the name brings that passage sentence
NAME_ALIAS = 0.72  # …and from which a name a retrieved passage writes is the missing one under another name
PHRASE_RELATED = 0.35  # a name of known words ("Google API") is spoken of by a sentence reading this close to it
MIN_SPEAKING_WORDS = 5  # a shorter line ("On Fly.io", a list of platforms) reads close to any name and speaks of none
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
_ELISION = re.compile(r"^(?:[a-zA-Z]|qu|jusqu|lorsqu|puisqu)['’]", re.IGNORECASE)
_ACRONYM_PLURAL = re.compile(r"[A-Z]{2,}s")
_POSSESSIVE = re.compile(r"['’]s$")  # "the iPhone's settings" names the iPhone
_PRONOUN_I = re.compile(r"I(?:['’](?:m|ve|d|ll))?")
# one of a kind ("an MSP") or a thing someone owns ("ma CNI", "my VPN"), never an organisation;
# "des" is also "de les" ("la liste des CESU")
_THING_DETERMINERS = frozenset({"a", "an", "my", "your", "our", "their", "his", "her", "its", "un", "une", "mon", "ma",
                                "mes", "ton", "ta", "tes", "son", "sa", "ses", "notre", "nos", "votre", "vos", "leur",
                                "leurs"})
_WRITTEN_NAME = re.compile(r"(?<![\w-])(?:[A-Za-z][\w-]*[A-Z0-9][\w-]*|[A-Z][\w-]+)")  # "iOS", "JS", "Windows"
_WORD_BEFORE = re.compile(r"([^\W\d_][\w-]*) $")
_WORD_AFTER = re.compile(r" ([^\W\d_][\w-]*)")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"«(]\s*)$")


@dataclass(frozen=True)
class Coverage:
    """What the base lacks of a question: `missing_names` (capitalised words no document holds)
    and `known_share` (idf-weighted share of content stems some document holds, in [0, 1])."""

    missing_names: tuple[str, ...]
    known_share: float
    absent_words: int = 0  # content stems of the question that no document holds

    @property
    def covered(self) -> bool:
        return not self.missing_names and self.known_share >= MIN_KNOWN_SHARE


def _names(question: str, is_content: Callable[[str], bool] = lambda word: True) -> list[str]:
    """Words written as names: capitalised inside a sentence, or with inner capitals or digits,
    or an acronym of `MIN_ACRONYM` letters or more that names an organisation ("à l'URSSAF", "au
    CROUS"), not one used as a common noun (`_common`: "a stable ASCII identifier", "un fichier
    JSON", "as an MSP", "ma CNI"): a format, a technology, a trade or a document is no subject the
    base must hold.
    `is_content` tells a content word from a function word ("au", "pour", "the")."""
    out: list[str] = []
    for match in _WORD.finditer(question):
        word = _POSSESSIVE.sub("", _ELISION.sub("", match.group(0))).strip("'’-")  # "d'Android", "iPhone's"
        if len(word) < 2 or _PRONOUN_I.fullmatch(word) or word in out:
            continue
        if _ACRONYM_PLURAL.fullmatch(word):
            continue  # an acronym's plural ("PCs", "APIs") is the acronym, and those name no subject alone
        inner = any(c.isupper() for c in word[1:]) and not word.isupper()
        starts = bool(_SENTENCE_START.search(question[: match.start()]))
        organisation = word.isupper() and len(word) >= MIN_ACRONYM and not _common(question, match, is_content)
        if inner or (word[0].isupper() and not starts and (not word.isupper() or organisation)):
            out.append(word)
    return out


def _common(question: str, match: re.Match[str], is_content: Callable[[str], bool]) -> bool:
    """Whether the word at `match` is used as a common noun: it sits right beside a lower-case
    content word it qualifies, or after an indefinite article or a possessive ("an MSP", "ma CNI")."""
    before = _WORD_BEFORE.search(question[: match.start()])
    after = _WORD_AFTER.match(question, match.end())
    if before is not None and before.group(1).lower() in _THING_DETERMINERS:
        return True
    return any(m is not None and m.group(1)[:1].islower() and is_content(m.group(1)) for m in (before, after))


def _known(index: Any, word: str, languages: list[str]) -> bool:
    """Whether the base holds `word`'s stems. A contraction's letter ("Let's") is no part of it,
    and a word that is only a function word in some language ("Your" in a title-cased question)
    names nothing: the index keeps no stop words, so both had read as names the base lacks. A
    name the base writes longer ("Postgres" for its "PostgreSQL") is known too."""
    parts = [p for p in re.split(r"[-'’]", fold_accents(word.lower())) if len(p) > 1]
    for lang in languages:
        stems = [s for p in parts for s in analyse(p, lang, index.params.stopwords)]
        if all(index.has_token(s) or (len(s) >= MIN_PREFIX and index.has_prefix(s)) for s in stems):
            return True
    return False


def _name_phrases(question: str, names: list[str]) -> list[list[str]]:
    """Runs of two or more capitalised words holding a name ("Apple Watch", "France Travail");
    none in a title-cased question, where most words are capitalised."""
    words = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(question)]
    if sum(w[0][0].isupper() for w in words) > 0.6 * len(words):
        return []
    runs: list[list[str]] = []
    previous_end, previous_upper = -2, False
    for word, start, end in words:  # a sentence's first word is capitalised for grammar: no run opens on it
        upper = (word[0].isupper() and not _SENTENCE_START.search(question[:start])
                 and not _ACRONYM_PLURAL.fullmatch(word)  # "Windows PCs" are computers, no product
                 and not _PRONOUN_I.fullmatch(word))  # "In OneLogin I'm adding…": "I" names nothing
        if upper and previous_upper and question[previous_end:start] in (" ", "-"):
            runs[-1].append(word)
        elif upper:
            runs.append([word])
        previous_end, previous_upper = end, upper
    return [r for r in runs if len(r) >= 2 and any(w in names for w in r)]


def _phrase(words: list[str]) -> re.Pattern[str]:
    """The words in this order, each with an ending of a few letters ("Apple Watches")."""
    return re.compile(r"(?<!\w)" + r"[\s-]+".join(re.escape(w.lower()) + r"\w{0,3}" for w in words) + r"(?!\w)")


def question_coverage(question: str, index: Any) -> Coverage:
    """How much of `question` the base behind `index` (a `LexicalIndex`) mentions."""
    languages = sorted(index.languages or ["en"], key=lambda lang: lang != detect_language(question))
    names = _names(question, lambda word: bool(analyse(word, languages[0], index.params.stopwords)))
    missing = tuple(w for w in names if not _known(index, w, languages))
    if not missing:  # each word known, but the name they make?
        missing = tuple(" ".join(run) for run in _name_phrases(question, names) if not index.mentions(_phrase(run)))
    tokens = set(analyse(question, languages[0], index.params.stopwords))
    if not tokens:
        return Coverage(missing, 1.0)
    weights = {t: index.idf(t) for t in tokens}
    known = sum(w for t, w in weights.items() if index.has_token(t))
    absent = sum(not index.has_token(t) for t in tokens)
    return Coverage(missing, known / (sum(weights.values()) or 1.0), absent)


def most_shared(question: str, passages: list[str], index: Any, language: str) -> float:
    """The largest idf-weighted share of `question`'s content words one of `passages` holds."""
    return max((index.coverage(question, text, language) for text in passages), default=0.0)


def shares_no_word(question: str, passages: list[str], index: Any, language: str) -> bool:
    """Whether none of `passages` (heading and text) holds a single content word of `question`."""
    return most_shared(question, passages, index, language) == 0.0


def unaliased(names: tuple[str, ...], passages: list[str], embedder: Any, cache_dir: Any) -> tuple[str, ...]:
    """`names` but those some of `passages` write under another name ("iOS" for "iPhone": see the
    module doc, `NAME_ALIAS`)."""
    if not names:
        return names
    written = sorted({w for p in passages for w in _WRITTEN_NAME.findall(p) if len(w) > 1})
    if not written:
        return names
    vectors = embed_texts(embedder, written, cache_dir)
    return tuple(n for n in names if not (vectors @ embedder.embed_query(n) >= NAME_ALIAS).any())


def names_spoken_of(names: tuple[str, ...], passages: list[str], embedder: Any, cache_dir: Any,
                    question: str = "") -> bool:
    """Whether a retrieved passage speaks of every missing name in other words (see the module
    doc); without `question` only the name's own cosine is read."""
    if not names:
        return True
    if not passages:
        return False
    sentences = [u.text for p in passages for u in units_of(p)
                 if u.kind in ("sentence", "row", "item") and len(u.text.split()) >= MIN_SPEAKING_WORDS]
    if not sentences:
        return False
    vectors = embed_texts(embedder, sentences, cache_dir)  # sentence by sentence: a chunk's vector blurs it
    with_name = vectors @ embedder.embed_query(question) if question else None
    for name in names:
        closeness = vectors @ embedder.embed_query(name)
        if " " in name and (closeness >= PHRASE_RELATED).any():
            continue  # known words the base writes apart, and a passage speaks of what they name together
        related = closeness >= NAME_RELATED
        if with_name is not None:
            without = " ".join(re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", question).split())
            related &= with_name - vectors @ embedder.embed_query(without) >= NAME_PULL
        if not related.any():
            return False
    return True
