"""A sentence without its subject ("Requires both …") is recognised by its shape."""

from __future__ import annotations

import pytest

from knowledge.subjectless import opens_on_verb


@pytest.mark.parametrize("sentence", [
    "Requires both a widget key and a login to be enabled.",
    "Returns the panel the user opened last.",
    "Sets `timeout` for every request of the client.",
    "Accepts an optional list of panel names.",
])
def test_a_verb_then_its_object_has_no_subject(sentence: str) -> None:
    assert opens_on_verb(sentence)


@pytest.mark.parametrize("sentence", [
    "Panels are shown beside the chat.",  # a plural noun, then its verb
    "Widgets can be moved at any time.",
    "Hours at the front desk change in summer.",  # a preposition after a plural noun
    "Class passes the whole afternoon.",  # "-ss" is no third-person ending
    "Requires login.",  # too short to tell
    "The widget requires a key.",
])
def test_a_sentence_with_its_subject_is_not_subjectless(sentence: str) -> None:
    assert not opens_on_verb(sentence)


def test_a_default_value_is_written_without_its_subject() -> None:
    """"`max` (int): The largest value. Defaults to 10.": the default belongs to `max`."""
    assert opens_on_verb("Defaults to 10.")
    assert opens_on_verb("Defaults to `None`.")
    assert opens_on_verb("Defaults to true.")
    assert not opens_on_verb("Settings to change.")
    assert not opens_on_verb("Defaults to the value of the parent widget.")
