"""The coach speaks the person's language: the kit's EN/FR vote plus the coach's own words."""

from __future__ import annotations

from collections.abc import Iterable

from relais.language import GENERAL, Language

_COACH_VOTE = GENERAL.with_words(
    english="allergy eat food injury meal training workout".split(),
    french="allergie blessure entrainement mange manger musculation repas seance".split(),
)


def detect_language(text: str, default: Language = "en") -> Language:
    """'fr' or 'en' for one message; `default` when it gives no clear signal."""
    return _COACH_VOTE.detect(text, default)


def conversation_language(texts: Iterable[str], default: Language = "en") -> Language:
    """The language of the most recent message that is clearly EN or FR."""
    return _COACH_VOTE.conversation(texts, default)


__all__ = ["Language", "conversation_language", "detect_language"]
