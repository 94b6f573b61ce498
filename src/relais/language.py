"""EN/FR language guess and accent folding, shared by retrieval, answers, the coach and the UI.

A stop-word vote (plus French diacritics and elisions) is instant, needs no model and is right
for the short messages Relais gets; a tie returns the caller's default.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Literal

Language = Literal["en", "fr"]

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_ELISION = re.compile(r"\b(?:l|d|j|qu|n|s|c|m|t)['’]\w", re.IGNORECASE)

# Frequent words that are distinctive for each language (no spelling shared by both lists).
_EN = frozenset(
    """a about add adjust am an and any are at be been by can cost costs could days did do does for
    from get give had has have he hello her here hi his how i if in into is it its many mine much
    my need no not nothing of on or our plan please she should some suggest than thank thanks that
    the their then there these they this those times to want was we week were what when where which
    who why will with without would yes you your""".split()
)
_FR = frozenset(
    """adapte adapter ai ajouter au aussi aux avec avez avons bien bonjour c ca car ce ces cet cette
    combien comment conseil conseils coute coutent d dans de des dois donc du elle elles es est et
    etait etre faire faut fois ici il ils j je jours la le les leur leurs ma mais merci mes moi mon
    n ne non nos notre nous ont ou oui par pas peut peux plus pour pourquoi pouvez programme
    propose proposer puis qu quand que quel quelle quelles quels qui quoi rien sa salut sans
    semaine ses si son sont suis sur svp ta te tes ton tres tu un une veux vos votre voudrais vous
    y""".split()
)
_FR_CHARS = frozenset("éèêëàâîïôûùçœ")


_LIGATURES = str.maketrans(
    {"œ": "oe", "Œ": "oe", "æ": "ae", "Æ": "ae", "’": "'", "‘": "'", "`": "'"}
)


class _Unaccented(dict[int, str]):
    """Character → its NFKD decomposition without combining marks, filled as characters are met:
    `str.translate` then folds a text at C speed (the composer folds every unit of every passage).
    Per character is exact: canonical reordering only moves combining marks, which are dropped."""

    def __missing__(self, code: int) -> str:
        folded = "".join(ch for ch in unicodedata.normalize("NFKD", chr(code)) if not unicodedata.combining(ch))
        self[code] = folded
        return folded


_UNACCENTED = _Unaccented()


def fold_accents(text: str) -> str:
    """Case- and accent-free ("Œufs à la Crème" → "oeufs a la creme"; typographic apostrophes → ').

    The one folding every package uses, so a word matches whichever way it was typed."""
    text = text.translate(_LIGATURES)
    if not text.isascii():  # ASCII has nothing to decompose (most help-center text)
        text = text.translate(_UNACCENTED)
    return text.casefold()


def words(text: str) -> list[str]:
    """Alphabetic words of `text`, accent-folded and lower-cased (elisions split: l'app → l, app)."""
    return _WORD.findall(fold_accents(text))


class LanguageVote:
    """EN/FR by a vote of distinctive words; a package adds its domain's own (`with_words`)."""

    def __init__(self, english: frozenset[str] = _EN, french: frozenset[str] = _FR) -> None:
        self.english, self.french = english, french

    def with_words(self, english: Iterable[str] = (), french: Iterable[str] = ()) -> LanguageVote:
        """This vote plus a domain's words (accent-folded, lower-case), e.g. the coach's "repas"."""
        return LanguageVote(self.english | frozenset(english), self.french | frozenset(french))

    def scores(self, text: str) -> tuple[float, float]:
        """(French votes, English votes) for one text."""
        tokens = words(text)
        lowered = text.lower()
        french = sum(1 for t in tokens if t in self.french)
        french += 0.5 * sum(1 for ch in lowered if ch in _FR_CHARS) + len(_ELISION.findall(text))
        english = sum(1 for t in tokens if t in self.english)
        return french, english

    def detect(self, text: str, default: Language = "en") -> Language:
        """'fr' or 'en' for one text; `default` when the text gives no clear signal."""
        french, english = self.scores(text)
        if french > english:
            return "fr"
        if english > french:
            return "en"
        return default

    def conversation(self, texts: Iterable[str], default: Language = "en") -> Language:
        """The language of the most recent text that is clearly EN or FR (people may switch)."""
        for text in reversed(list(texts)):
            french, english = self.scores(text)
            if french != english:
                return "fr" if french > english else "en"
        return default


GENERAL = LanguageVote()


def language_scores(text: str) -> tuple[float, float]:
    """(French votes, English votes) for one text, with the general words only."""
    return GENERAL.scores(text)


def detect_language(text: str, default: Language = "en") -> Language:
    """'fr' or 'en' for one text; `default` when the text gives no clear signal."""
    return GENERAL.detect(text, default)


def conversation_language(texts: Iterable[str], default: Language = "en") -> Language:
    """The language of the most recent text that is clearly EN or FR (people may switch)."""
    return GENERAL.conversation(texts, default)
