"""The booking agent in-process: approvals through HumanInTheLoopMiddleware, rows exactly once."""

from __future__ import annotations

from pathlib import Path

import pytest
from langgraph.types import Command

from booking import APPROVALS, BookingStore, build_booking_agent
from booking.engine import claims_request, plan_call, plan_calls
from booking.tools import BOOK, CANCEL, FIND, make_tools
from relais.testing import ScriptedChatModel, tool_call


@pytest.fixture
def store(tmp_path: Path) -> BookingStore:
    return BookingStore(tmp_path / "bookings.db")


def _run(agent, value, thread: str = "t1"):
    return agent.invoke(value, {"configurable": {"thread_id": thread}}, version="v2")


def _ask(agent, text: str, thread: str = "t1"):
    return _run(agent, {"messages": [{"role": "user", "content": text}]}, thread)


def _only_interrupt(result):
    assert len(result.interrupts) == 1
    return result.interrupts[0]


def test_booking_waits_for_approval_then_writes_one_row(store: BookingStore) -> None:
    agent = build_booking_agent(store=store)
    pending = _only_interrupt(_ask(agent, "Book yoga on Monday at 18:00 please"))
    request = pending.value
    assert request["action_requests"][0]["name"] == BOOK
    assert request["action_requests"][0]["args"] == {"activity": "yoga", "day": "monday", "time": "18:00"}
    assert request["action_requests"][0]["description"] == "Book yoga on Monday at 18:00."
    assert request["review_configs"][0]["allowed_decisions"] == ["approve", "edit", "reject"]
    assert store.bookings() == []  # nothing written before the person approves

    result = _run(agent, Command(resume={pending.id: {"decisions": [{"type": "approve"}]}}))
    assert not result.interrupts
    assert "Booked #1: yoga, monday 18:00" in result.value["messages"][-1].content
    assert [(b.activity, b.day, b.time) for b in store.bookings()] == [("yoga", "monday", "18:00")]


def test_rejected_booking_writes_nothing_and_says_why(store: BookingStore) -> None:
    agent = build_booking_agent(store=store)
    pending = _only_interrupt(_ask(agent, "réserve le yoga lundi à 18h"))
    assert pending.value["action_requests"][0]["description"] == "Réserver yoga le lundi à 18:00."
    decision = {"decisions": [{"type": "reject", "message": "wrong day"}]}
    result = _run(agent, Command(resume={pending.id: decision}))
    assert store.bookings() == []
    assert result.value["messages"][-1].content == "Entendu : rien n'a été fait. Raison donnée : wrong day"


def test_edited_booking_writes_the_edited_values(store: BookingStore) -> None:
    agent = build_booking_agent(store=store)
    pending = _only_interrupt(_ask(agent, "book yoga monday 18:00"))
    edited = {"name": BOOK, "args": {"activity": "pilates", "day": "tuesday", "time": "12:15"}}
    result = _run(agent, Command(resume={pending.id: {"decisions": [{"type": "edit", "edited_action": edited}]}}))
    assert [(b.activity, b.day, b.time) for b in store.bookings()] == [("pilates", "tuesday", "12:15")]
    assert result.value["messages"][-1].content == "Booked #1: pilates, tuesday 12:15."


def test_a_replayed_tool_call_does_not_write_twice(store: BookingStore) -> None:
    """The tool is keyed by its call id: running the same approved call again (a resume that
    re-executes the tools node) returns the same row instead of a second one."""
    tools = {t.name: t for t in make_tools(store)}
    call = {"name": BOOK, "args": {"activity": "boxing", "day": "saturday", "time": "11:00"}, "id": "call_x",
            "type": "tool_call"}
    first = tools[BOOK].invoke(call)
    second = tools[BOOK].invoke(call)
    assert first.content == second.content == "Booked #1: boxing, saturday 11:00."
    assert len(store.bookings()) == 1


def test_cancel_needs_approval_and_allows_no_edit(store: BookingStore) -> None:
    store.book("earlier", "yoga", "monday", "18:00")
    agent = build_booking_agent(store=store)
    pending = _only_interrupt(_ask(agent, "cancel booking #1"))
    assert pending.value["action_requests"][0]["name"] == CANCEL
    assert pending.value["review_configs"][0]["allowed_decisions"] == ["approve", "reject"]
    _run(agent, Command(resume={pending.id: {"decisions": [{"type": "approve"}]}}))
    assert [b.status for b in store.bookings()] == ["cancelled"]
    assert store.cancellations() == 1


def test_finding_classes_runs_without_approval(store: BookingStore) -> None:
    agent = build_booking_agent(store=store)
    result = _ask(agent, "which pilates classes are there?")
    assert not result.interrupts
    reply = result.value["messages"][-1].content
    assert "- pilates, tuesday 12:15" in reply and "- pilates, thursday 18:30" in reply


def test_a_real_model_path_goes_through_the_same_approvals(store: BookingStore) -> None:
    model = ScriptedChatModel([
        tool_call(BOOK, {"activity": "swimming", "day": "sunday", "time": "09:30"}, "call_m1"),
        "Done: you are booked for swimming on Sunday.",
    ])
    agent = build_booking_agent(model, store=store)
    pending = _only_interrupt(_ask(agent, "I'd like a swim on Sunday morning"))
    assert set(model.bound_tools) == {FIND, BOOK, CANCEL}
    result = _run(agent, Command(resume={pending.id: {"decisions": [{"type": "approve"}]}}))
    assert result.value["messages"][-1].content == "Done: you are booked for swimming on Sunday."
    assert [b.tool_call_id for b in store.bookings()] == ["call_m1"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("book yoga on Monday at 18:00", (BOOK, {"activity": "yoga", "day": "monday", "time": "18:00"})),
        ("Je voudrais réserver la boxe samedi", (BOOK, {"activity": "boxing", "day": "saturday", "time": "11:00"})),
        ("sign me up for spinning", (FIND, {"activity": "spinning", "day": ""})),
        ("annuler la réservation 3", (CANCEL, {"booking_id": 3})),
        ("what's on friday?", (FIND, {"activity": "", "day": "friday"})),
        ("hello", None),
    ],
)
def test_the_offline_engine_reads_the_request(text: str, expected) -> None:
    assert plan_call(text) == expected


def test_several_classes_are_several_calls_in_one_approval(store: BookingStore) -> None:
    assert plan_calls("Book yoga on Monday and pilates on Tuesday at 12:15") == [
        (BOOK, {"activity": "yoga", "day": "monday", "time": "18:00"}),
        (BOOK, {"activity": "pilates", "day": "tuesday", "time": "12:15"}),
    ]
    assert plan_calls("Réserve le yoga lundi et mercredi") == [  # the second clause keeps the activity
        (BOOK, {"activity": "yoga", "day": "monday", "time": "18:00"}),
        (BOOK, {"activity": "yoga", "day": "wednesday", "time": "07:30"}),
    ]
    agent = build_booking_agent(store=store)
    request = _only_interrupt(_ask(agent, "Book spinning on Friday at 19:00 and boxing on Saturday")).value
    assert [a["args"]["activity"] for a in request["action_requests"]] == ["spinning", "boxing"]
    decisions = [{"type": "approve"}, {"type": "reject", "message": "too late"}]
    result = _run(agent, Command(resume={"decisions": decisions}))
    assert [(b.activity, b.day) for b in store.bookings()] == [("spinning", "friday")]
    reply = result.value["messages"][-1].content
    assert reply.index("Booked #") < reply.index("nothing was done"), "one line per action, in the card's order"


@pytest.mark.parametrize(
    ("text", "claimed"),
    [
        ("Book me a yoga class on Monday at 18:00", True),
        ("Réserve-moi un cours de boxe samedi", True),
        ("Cancel booking #3", True),
        ("What's on the timetable?", True),
        ("Cancel my membership for me, please", False),
        ("I train on Mondays, build me a plan", False),
        ("yes", False),
    ],
)
def test_what_the_booking_agent_claims_in_a_routed_service(text: str, claimed: bool) -> None:
    assert claims_request(text) is claimed


def test_approval_config_is_the_middlewares_own() -> None:
    assert set(APPROVALS) == {BOOK, CANCEL}
