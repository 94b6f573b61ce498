"""Find *recommended* mentions of terms in a reply (EN/FR), ignoring negated or substituted ones.

Why not a plain substring test: a correct answer often says "no X", "Y instead of X" or
"X-free"; a mention is not a recommendation. A mention counts only when no negator precedes it
in the same clause (within a few words) and no qualifier turns it into something else ("X-free",
"X substitute", or the domain's own `safe_before`/`safe_after` words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from relais.language import fold_accents as fold


def words(text: str) -> list[str]:
    """Whitespace-separated word list: keeps long lexicons readable in the source."""
    return text.split()


_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_CLAUSE = re.compile(r"[.!?;•]+|(?:\s[-–—]\s)")
_BULLET = re.compile(r"^(?:[-*•+]|\d+[.)])\s*")

NEGATORS = frozenset(
    words(
        """
        no not never without avoid avoids avoided avoiding skip skipped skipping exclude
        excluded excludes excluding eliminate eliminated eliminating instead replace
        replaced replaces replacing substitute substituted substituting swap swapped
        swapping minus nor none don't dont doesn't won't shouldn't can't cannot isn't aren't
        free omit omitted omitting remove removed removing ditch ne sans pas aucun aucune
        eviter evitez evite evitant exclure exclus exclue exclu excluez remplacer remplacez
        remplace remplaces remplacee lieu ni jamais interdit interdits interdite proscrire
        proscrit proscrits bannir supprimer supprimez supprime retirer retirez retire zero
    """
    )
)
"""Words that, shortly before a term, mean it is excluded rather than recommended (EN/FR)."""

_CONTRAST = frozenset(
    ["but", "however", "though", "although", "yet", "mais", "cependant", "pourtant", "toutefois"]
)
_CONNECTORS = frozenset(
    words(
        """
        and or nor any other the a an of some et ou ni de des du d la le les l un une aucun
        autre
    """
    )
)
_POSITIVE = frozenset(
    words(
        """
        do does doing perform include includes add try use eat have enjoy choose start opt
        focus prefer recommend recommended suggest suggested keep also then faites faire
        ajoutez ajouter mangez manger prenez prendre choisissez incluez inclure essayez
        privilegiez optez utilisez gardez recommande recommandes puis aussi
    """
    )
)
_AFTER_EXCUSE = frozenset(
    words(
        """
        free substitute substitutes alternative alternatives replacement replacements
        analogue
    """
    )
)
"""Words right after a term that make it something else ("X-free", "X substitute"); a domain
adds its own through `Lexicon.safe_after`."""


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(fold(text))


def _term_tokens(term: str) -> tuple[str, ...]:
    """Tokens of a term; a word ending in `*` is a prefix (`cacahu*` matches `cacahuetes`)."""
    out: list[str] = []
    for word in term.split():
        parts = tokens(word)
        if parts and word.endswith("*"):
            parts[-1] += "*"
        out += parts
    return tuple(out)


@dataclass(frozen=True)
class Lexicon:
    """Terms to find, and words that turn a nearby mention into a safe one.

    `safe_before`: a word right before the term that makes it harmless ("almond" milk, "soy" yogurt).
    `safe_after`: words right after it that do the same ("lait *de soja*", "noix *de coco*").
    """

    terms: tuple[tuple[str, ...], ...]
    safe_before: frozenset[str] = field(default_factory=frozenset)
    safe_after: tuple[tuple[str, ...], ...] = ()
    negators: frozenset[str] = field(default_factory=frozenset)
    """Domain words that, like "avoid", put the next few terms out of scope (a heading that restates an exclusion)."""

    @classmethod
    def of(
        cls,
        terms: Iterable[str],
        safe_before: Iterable[str] = (),
        safe_after: Iterable[str] = (),
        negators: Iterable[str] = (),
    ) -> Lexicon:
        parsed = {t for t in (_term_tokens(term) for term in terms) if t}
        return cls(
            terms=tuple(sorted(parsed, key=len, reverse=True)),
            safe_before=frozenset(tok for word in safe_before for tok in tokens(word)),
            safe_after=tuple(t for t in (_term_tokens(s) for s in safe_after) if t),
            negators=frozenset(tok for word in negators for tok in tokens(word)),
        )

    def __or__(self, other: Lexicon) -> Lexicon:
        return Lexicon(
            terms=tuple(sorted(set(self.terms) | set(other.terms), key=len, reverse=True)),
            safe_before=self.safe_before | other.safe_before,
            safe_after=self.safe_after + other.safe_after,
            negators=self.negators | other.negators,
        )


def _matches_at(clause: list[str], index: int, term: tuple[str, ...]) -> bool:
    """Token match allowing a plural `s`/`x`/`es` on the last token of the term."""
    if index + len(term) > len(clause):
        return False
    for offset, part in enumerate(term):
        word = clause[index + offset]
        if word == part or (part.endswith("*") and word.startswith(part[:-1])):
            continue
        last = offset == len(term) - 1
        if last and word in (part + "s", part + "es", part + "x"):
            continue
        return False
    return True


def recommended_mentions(text: str, lexicon: Lexicon, window: int = 4) -> list[str]:
    """Terms of `lexicon` that the text mentions without negating or qualifying them away.

    A negator opens a scope of `window` ordinary words; list connectors and the listed terms
    themselves do not use it up ("avoid A, B and C"), a contrast word or a
    positive instruction ("do", "ajoutez") closes it. A line ending with ':' that holds a
    negator ("Avoid:") negates the bullet lines right under it.
    """
    found: list[str] = []
    list_negated = False
    for line in fold(text).splitlines():
        stripped = line.strip()
        is_bullet = bool(_BULLET.match(stripped))
        if not is_bullet:
            list_negated = False
        body = _BULLET.sub("", stripped, count=1) if is_bullet else stripped
        for number, raw_clause in enumerate(_CLAUSE.split(body)):
            clause = _TOKEN.findall(raw_clause)
            budget = window if (list_negated and is_bullet and number == 0) else 0
            found.extend(_scan_clause(clause, lexicon, budget, window))
        if stripped.endswith(":") and any(
            tok in NEGATORS or tok in lexicon.negators for tok in _TOKEN.findall(stripped)
        ):
            list_negated = True
    return found


def _scan_clause(clause: list[str], lexicon: Lexicon, budget: int, window: int) -> list[str]:
    found: list[str] = []
    index = 0
    while index < len(clause):
        word = clause[index]
        term = next((t for t in lexicon.terms if _matches_at(clause, index, t)), None)
        if term is not None:
            end = index + len(term)
            excused = (
                budget > 0
                or (index > 0 and clause[index - 1] in lexicon.safe_before)
                or (end < len(clause) and clause[end] in _AFTER_EXCUSE)
                or any(tuple(clause[end : end + len(s)]) == s for s in lexicon.safe_after)
            )
            if not excused:
                found.append(" ".join(term))
            index = end
            continue
        if word in _CONTRAST:
            budget = 0
        elif word in NEGATORS or word in lexicon.negators:
            budget = window
        elif word in _POSITIVE and not (index > 0 and clause[index - 1] in NEGATORS):
            budget = 0
        elif word not in _CONNECTORS:
            budget = max(0, budget - 1)
        index += 1
    return found
