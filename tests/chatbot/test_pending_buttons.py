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


def test_a_click_is_judged_by_its_interrupt_id_not_by_the_session_that_showed_it(monkeypatch) -> None:
    """After a reload or reconnect the click can reach a session that has not restored the prompt
    yet (issue 24): with an interrupt id it stays answerable there (the checkpoint decides next),
    and a live prompt of another interrupt still makes it stale."""
    from chatbot.ui import pending

    (button,) = PendingPrompt("interrupt-1", "Anything to add?", ["Vegan"]).buttons()
    button.forId = "message-of-the-old-session"
    for live, expected in ((None, True), ({"interrupt_id": "interrupt-1", "message_id": "other"}, True),
                           ({"interrupt_id": "interrupt-2", "message_id": "other"}, False)):
        monkeypatch.setattr(pending, "_get_live", lambda live=live: live)
        assert pending.is_live(button) is expected, live
    (plain,) = PendingPrompt(None, "Type your reply", ["Yes"]).buttons()  # no id: its message must be live
    plain.forId = "m-1"
    monkeypatch.setattr(pending, "_get_live", lambda: {"interrupt_id": None, "message_id": "m-1"})
    assert pending.is_live(plain)
    monkeypatch.setattr(pending, "_get_live", lambda: None)
    assert not pending.is_live(plain)
