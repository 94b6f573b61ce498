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
