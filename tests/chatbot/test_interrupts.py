"""Interrupts shown by what they are: approval cards, text prompts, coach choices, other JSON."""

from __future__ import annotations

from assistant.agent_payloads import interrupt_from
from chatbot.ui.interrupts import EDIT_CHOICE, edit_help, prompt_for
from relais.events import InterruptEvent

HITL = {
    "action_requests": [{"name": "book_class", "args": {"activity": "yoga", "day": "monday", "time": "18:00"},
                         "description": "Book yoga on Monday at 18:00."}],
    "review_configs": [{"action_name": "book_class", "allowed_decisions": ["approve", "edit", "reject"]}],
}


def test_an_approval_card_shows_the_action_readably_with_only_its_buttons() -> None:
    prompt = prompt_for(InterruptEvent("", kind="approval", payload=HITL, interrupt_id="i1"), "en")
    assert prompt.kind == "approval" and prompt.interrupt_id == "i1"
    assert "**`book_class`** — Book yoga on Monday at 18:00." in prompt.prompt
    assert "- **day**: monday" in prompt.prompt and "{" not in prompt.prompt  # no raw JSON
    assert [(c.label, c.answer) for c in prompt.choices] == [("Approve", "approve"), ("Edit", EDIT_CHOICE),
                                                            ("Reject", "reject")]
    cancel = {"action_requests": [{"name": "cancel_booking", "args": {"booking_id": 3}}],
              "review_configs": [{"action_name": "cancel_booking", "allowed_decisions": ["approve", "reject"]}]}
    french = prompt_for(InterruptEvent("", kind="approval", payload=cancel, interrupt_id="i2"), "fr")
    assert [c.label for c in french.choices] == ["Approuver", "Refuser"]  # no Edit: its config forbids it
    assert "Validation requise" in french.prompt


def test_edit_help_names_the_arguments() -> None:
    text = edit_help(InterruptEvent("", kind="approval", payload=HITL), "en")
    assert "`activity` (yoga)" in text and "activity=yoga, day=monday" in text


def test_the_relais_protocol_recognises_a_middleware_request_too() -> None:
    event = interrupt_from({**HITL, "interrupt_id": "abc"})
    assert event.kind == "approval" and event.interrupt_id == "abc" and event.prompt == "Book yoga on Monday at 18:00."


def test_text_coach_and_other_json_prompts() -> None:
    text = prompt_for(InterruptEvent("What is your name?", kind="text", interrupt_id="t"), "en")
    assert text.prompt.startswith("What is your name?") and not text.choices
    coach = prompt_for(InterruptEvent("Anything to add?", ["Injury", "Nothing to add"], "constraints"), "en")
    assert list(coach.choices) == ["Injury", "Nothing to add"] and coach.prompt == "Anything to add?"
    other = prompt_for(InterruptEvent("{}", kind="json", payload={"value": {"question": 3, "options": ["a", "b"]}}))
    assert "- **question**: 3" in other.prompt and "- **options**:" in other.prompt and "  - a" in other.prompt
