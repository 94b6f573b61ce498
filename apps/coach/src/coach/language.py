"""Which language (EN or FR) the person writes in, so prompts and offline replies match it.

A stop-word vote is enough for two languages and never needs a model or a download.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from coach._text import tokens

Language = Literal["en", "fr"]

_FR = frozenset(
    [
        "je",
        "j",
        "moi",
        "mon",
        "ma",
        "mes",
        "tu",
        "te",
        "ton",
        "ta",
        "tes",
        "vous",
        "votre",
        "vos",
        "nous",
        "notre",
        "nos",
        "il",
        "elle",
        "le",
        "la",
        "les",
        "un",
        "une",
        "des",
        "du",
        "de",
        "d",
        "au",
        "aux",
        "et",
        "est",
        "suis",
        "es",
        "sont",
        "ai",
        "as",
        "avons",
        "avez",
        "ont",
        "pour",
        "avec",
        "sans",
        "dans",
        "sur",
        "que",
        "qu",
        "quoi",
        "qui",
        "quel",
        "quelle",
        "quels",
        "quelles",
        "comment",
        "pourquoi",
        "ne",
        "n",
        "pas",
        "plus",
        "ce",
        "cette",
        "ces",
        "c",
        "ca",
        "ici",
        "aussi",
        "mais",
        "ou",
        "donc",
        "car",
        "tres",
        "bien",
        "merci",
        "bonjour",
        "salut",
        "veux",
        "voudrais",
        "peux",
        "pouvez",
        "dois",
        "manger",
        "mange",
        "programme",
        "seance",
        "semaine",
        "jours",
        "fois",
        "repas",
        "rien",
        "ajouter",
        "adapte",
        "adapter",
        "propose",
        "proposer",
        "conseil",
        "conseils",
        "entrainement",
        "musculation",
        "blessure",
        "allergie",
        "oui",
        "non",
    ]
)
_EN = frozenset(
    [
        "i",
        "my",
        "mine",
        "you",
        "your",
        "we",
        "our",
        "he",
        "she",
        "it",
        "they",
        "the",
        "an",
        "and",
        "is",
        "am",
        "are",
        "was",
        "were",
        "be",
        "have",
        "has",
        "for",
        "with",
        "without",
        "in",
        "at",
        "to",
        "of",
        "from",
        "what",
        "which",
        "who",
        "how",
        "why",
        "should",
        "could",
        "would",
        "can",
        "will",
        "do",
        "does",
        "not",
        "no",
        "this",
        "that",
        "these",
        "those",
        "please",
        "thanks",
        "thank",
        "hello",
        "hi",
        "want",
        "need",
        "give",
        "suggest",
        "eat",
        "food",
        "meal",
        "plan",
        "workout",
        "training",
        "week",
        "days",
        "times",
        "adjust",
        "add",
        "nothing",
        "yes",
        "injury",
        "allergy",
    ]
)
_ACCENTS = set("éèêàâçùûîïôœ")


def language_scores(text: str) -> tuple[int, int]:
    """(French votes, English votes) for one text."""
    toks = tokens(text)
    fr = sum(1 for t in toks if t in _FR) + 2 * sum(1 for ch in text.lower() if ch in _ACCENTS)
    en = sum(1 for t in toks if t in _EN)
    return fr, en


def detect_language(text: str, default: Language = "en") -> Language:
    """'fr' or 'en' for one text; `default` when the text gives no clear signal."""
    fr, en = language_scores(text)
    if fr > en:
        return "fr"
    if en > fr:
        return "en"
    return default


def conversation_language(texts: Iterable[str], default: Language = "en") -> Language:
    """The language of the most recent text that is clearly EN or FR (people may switch)."""
    for text in reversed(list(texts)):
        fr, en = language_scores(text)
        if fr != en:
            return "fr" if fr > en else "en"
    return default
