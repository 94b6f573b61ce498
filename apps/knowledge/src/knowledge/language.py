"""Tiny language helpers shared by retrieval, answers and the UI: EN/FR guess, accent folding.

The guess is stop-word based on purpose: it is instant, needs no model, and is right for the
short help-center questions Relais gets; ties fall back to English.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

Language = Literal["en", "fr"]

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)

# Frequent function words that are distinctive for each language (no shared spellings).
_EN = frozenset(
    ["the", "a", "an", "and", "or", "of", "to", "in", "is", "are", "was", "were", "be", "been", "it", "this", "that", "these", "those", "what", "which", "who", "how", "why", "when", "where", "do", "does", "did", "can", "could", "should", "would", "will", "my", "your", "our", "their", "his", "her", "its", "i", "you", "we", "they", "with", "for", "from", "on", "at", "by", "as", "not", "no", "yes", "if", "there", "here", "have", "has", "had", "about", "into", "than", "then", "please", "much", "many", "any", "some", "get", "cost", "costs"]
)
_FR = frozenset(
    ["le", "la", "les", "un", "une", "des", "du", "de", "et", "ou", "est", "sont", "etait", "etre", "ce", "cet", "cette", "ces", "que", "qui", "quoi", "quel", "quelle", "quels", "quelles", "comment", "pourquoi", "quand", "combien", "je", "tu", "il", "elle", "nous", "vous", "ils", "elles", "mon", "ma", "mes", "ton", "ta", "tes", "son", "sa", "ses", "notre", "votre", "leur", "leurs", "avec", "pour", "par", "sur", "dans", "pas", "ne", "plus", "au", "aux", "mais", "donc", "car", "si", "oui", "non", "y", "puis", "peut", "peux", "faut", "faire", "coute", "coutent", "bonjour", "merci", "svp"]
)
_FR_CHARS = set("éèêëàâîïôûùçœ")


def fold_accents(text: str) -> str:
    """Lower-case and strip diacritics ("Résilier" → "resilier") so accents never block a match."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).replace("œ", "oe")


def words(text: str) -> list[str]:
    """Alphabetic words of `text`, accent-folded and lower-cased."""
    return _WORD.findall(fold_accents(text))


def detect_language(text: str) -> Language:
    """Guess whether `text` is French or English from stop words and French diacritics."""
    tokens = words(text.replace("'", " ").replace("’", " "))
    fr = sum(1 for t in tokens if t in _FR)
    en = sum(1 for t in tokens if t in _EN)
    lowered = text.lower()
    fr += sum(1 for ch in lowered if ch in _FR_CHARS) * 0.5
    if re.search(r"\b(?:l|d|j|qu|n|s|c)['’]\w", lowered):
        fr += 1
    return "fr" if fr > en else "en"
