"""The buttons of a pending prompt: ids derived from the interrupt, so any process re-showing the
prompt replaces the copy a page already holds instead of adding a second set."""

from __future__ import annotations

from chatbot.ui.pending import Choice, PendingPrompt


def ids(prompt: PendingPrompt) -> list[str]:
    return [action.id for action in prompt.buttons()]


def test_the_same_interrupt_gives_the_same_button_ids_in_any_process() -> None:
    first = PendingPrompt("interrupt-1", "Anything to add?", ["Injury", Choice("Vegetarian", "I'm vegetarian.")])
    again = PendingPrompt("interrupt-1", "Anything to add? (re-rendered)", ["Injury", Choice("Vegetarian", "I'm vegetarian.")])
    assert ids(first) == ids(again)
    assert len(set(ids(first))) == 2  # one id per button


def test_another_interrupt_gets_other_ids() -> None:
    first = PendingPrompt("interrupt-1", "Anything to add?", ["Injury", "Vegan"])
    second = PendingPrompt("interrupt-2", "Anything to add?", ["Injury", "Vegan"])
    assert not set(ids(first)) & set(ids(second))


def test_without_an_interrupt_id_every_rendering_is_new() -> None:
    prompt = PendingPrompt(None, "Type your reply", ["Yes"])
    assert ids(prompt) != ids(prompt)


def test_payload_carries_the_answer_and_the_interrupt() -> None:
    (button,) = PendingPrompt("interrupt-9", "Publish?", [Choice("Publish", "yes")]).buttons()
    assert button.label == "Publish" and button.payload == {"value": "yes", "interrupt_id": "interrupt-9"}
