"""Reading HumanInTheLoopMiddleware requests and turning replies (typed or clicked) into decisions."""

from __future__ import annotations

import pytest

from relais.approvals import ReplyError, approval_request, decisions_for, is_decision_reply

REQUEST = {
    "action_requests": [
        {"name": "book_class", "args": {"activity": "yoga", "day": "monday", "time": "18:00"},
         "description": "Book yoga on Monday at 18:00."},
        {"name": "cancel_booking", "args": {"booking_id": 4}, "description": "Cancel booking #4."},
    ],
    "review_configs": [
        {"action_name": "book_class", "allowed_decisions": ["approve", "edit", "reject"]},
        {"action_name": "cancel_booking", "allowed_decisions": ["approve", "reject"]},
    ],
}
ONE = {"action_requests": REQUEST["action_requests"][:1], "review_configs": REQUEST["review_configs"][:1]}


def test_a_middleware_request_is_recognised_and_nothing_else() -> None:
    actions = approval_request(REQUEST)
    assert [(a.name, a.allowed) for a in actions] == [
        ("book_class", ("approve", "edit", "reject")), ("cancel_booking", ("approve", "reject"))]
    assert approval_request({"prompt": "Anything?", "choices": []}) is None
    assert approval_request("a question") is None


@pytest.mark.parametrize(("reply", "decision"), [
    ("yes", {"type": "approve"}), ("Approve", {"type": "approve"}), ("oui", {"type": "approve"}),
    ("non", {"type": "reject"}), ("reject", {"type": "reject"}),
    ("reject: wrong day", {"type": "reject", "message": "wrong day"}),
    ("refuser : pas ce jour-là", {"type": "reject", "message": "pas ce jour-là"}),
])
def test_typed_replies_en_fr(reply: str, decision: dict) -> None:
    assert decisions_for(reply, approval_request(ONE)) == {"decisions": [decision]}
    assert is_decision_reply(reply)


def test_an_edit_keeps_the_other_arguments_and_checks_types() -> None:
    assert decisions_for("edit: day=tuesday, time=12:15", approval_request(ONE)) == {"decisions": [
        {"type": "edit", "edited_action": {"name": "book_class",
                                           "args": {"activity": "yoga", "day": "tuesday", "time": "12:15"}}}]}
    with pytest.raises(ReplyError, match="no argument 'colour'"):
        decisions_for("edit: colour=blue", approval_request(ONE))
    with pytest.raises(ReplyError, match="Dites quoi changer"):
        decisions_for("modifier", approval_request(ONE), "fr")


def test_several_actions_one_decision_each_in_order() -> None:
    actions = approval_request(REQUEST)
    assert decisions_for("approve; reject: keep it", actions) == {"decisions": [
        {"type": "approve"}, {"type": "reject", "message": "keep it"}]}
    assert decisions_for("no", actions) == {"decisions": [{"type": "reject"}, {"type": "reject"}]}
    with pytest.raises(ReplyError, match="not allowed for cancel_booking"):
        decisions_for("approve; edit: booking_id=5", actions)
    with pytest.raises(ReplyError, match="integer|whole number"):
        decisions_for("edit: time=19:00; edit: booking_id=x", [actions[0], actions[0].__class__(
            "cancel_booking", {"booking_id": 4}, "", ("edit",))])
    with pytest.raises(ReplyError, match="There are 2 actions"):
        decisions_for("yes; no; yes", actions)
    with pytest.raises(ReplyError, match="did not understand"):
        decisions_for("tomorrow maybe", actions)
    assert not is_decision_reply("tomorrow maybe")
