from __future__ import annotations

import pytest

from knowledge.language import detect_language, fold_accents, words


@pytest.mark.parametrize(
    "text, expected",
    [
        ("How much does the base plan cost?", "en"),
        ("Combien coûte le forfait de base ?", "fr"),
        ("J'ai oublié mon mot de passe", "fr"),
        ("Can I freeze my membership for two months?", "en"),
        ("Est-ce que je peux suspendre mon abonnement pendant les vacances ?", "fr"),
        ("Résiliation", "fr"),  # no stop word, but French diacritics
        ("Garmin sync", "en"),  # nothing distinctive: English is the fallback
        ("", "en"),
    ],
)
def test_detect_language(text: str, expected: str) -> None:
    assert detect_language(text) == expected


def test_fold_accents_and_words() -> None:
    assert fold_accents("Résilier l'ŒUVRE à Noël") == "resilier l'oeuvre a noel"
    assert words("Réinitialiser: le mot-de-passe, 24h!") == ["reinitialiser", "le", "mot", "de", "passe", "h"]


def test_fold_accents_matches_nfkd_without_combining_marks_for_every_character() -> None:
    """The per-character table folds exactly as decomposing the whole text would."""
    import unicodedata

    ligatures = str.maketrans({"œ": "oe", "Œ": "oe", "æ": "ae", "Æ": "ae", "’": "'", "‘": "'", "`": "'"})

    def by_decomposition(text: str) -> str:
        decomposed = unicodedata.normalize("NFKD", text.translate(ligatures))
        return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()

    samples = ["Crème brûlée", "ﬁchier Å Ω ǅ ß İ", "e\u0301te\u0301 c\u0327a", "Ça coûte 10 €", "plain ASCII `x`"]
    samples += ["".join(chr(c) for c in range(start, start + 64)) for start in range(0xA0, 0x2000, 64)]
    for text in samples:
        assert fold_accents(text) == by_decomposition(text), text
