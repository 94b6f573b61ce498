"""The kit's agent-service pieces on real graphs: `AgentGraphRunner` (any create_agent graph as a
runner: approvals read from replies, stale clicks refused) and `AgentRouter` (which agent takes a
thread, kept in its table across router instances)."""

from __future__ import annotations

from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from booking import BookingStore, build_booking_agent
from relais.agent_router import AgentRouter, Route, RouteStore
from relais.agent_runner import AgentGraphRunner
from relais.events import AgentEvent, DoneEvent, ErrorEvent, InterruptEvent, TextChunk
from relais.turns import StaleInterrupt


def booking_runner(tmp_path: Path, name: str) -> AgentGraphRunner:
    store = BookingStore(tmp_path / f"{name}.db")
    return AgentGraphRunner(build_booking_agent(checkpointer=InMemorySaver(), store=store))


async def turn(runner, thread: str, message: str, **kwargs) -> list[AgentEvent]:
    return [e async for e in runner.run_turn(thread, message, user_id="alice", **kwargs)]


def card(events: list[AgentEvent]) -> InterruptEvent:
    return next(e for e in events if isinstance(e, InterruptEvent))


async def test_a_reply_that_cannot_be_read_resumes_nothing(tmp_path: Path) -> None:
    runner = booking_runner(tmp_path, "b")
    first = card(await turn(runner, "t", "Book yoga on Monday at 18:00"))
    assert first.kind == "approval" and await runner.owner("t") == "alice"
    unread = await turn(runner, "t", "perhaps tomorrow")
    assert [e.code for e in unread if isinstance(e, ErrorEvent)] == ["invalid_reply"]
    assert card(unread).interrupt_id == first.interrupt_id and isinstance(unread[-1], DoneEvent)
    assert (await runner.pending("t")).interrupt_id == first.interrupt_id  # still waiting, same card
    done = await turn(runner, "t", "approve", interrupt_id=first.interrupt_id)
    assert "Booked #1" in "".join(e.text for e in done if isinstance(e, TextChunk))
    with pytest.raises(StaleInterrupt):
        await turn(runner, "t", "approve", interrupt_id=first.interrupt_id)


def test_a_runner_needs_a_checkpointer(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        AgentGraphRunner(build_booking_agent(store=BookingStore(tmp_path / "b.db"), served=True))


async def test_the_router_keeps_a_thread_with_its_agent(tmp_path: Path) -> None:
    first, second = booking_runner(tmp_path, "first"), booking_runner(tmp_path, "second")
    routes = [Route("first", first, lambda m: "first" in m), Route("second", second, lambda m: "second" in m, "2:")]
    router = AgentRouter(routes, RouteStore(f"sqlite+aiosqlite:///{tmp_path / 'routes.db'}"), default="first")
    pending = card(await turn(router, "t", "second: book yoga on Monday"))
    assert await router.pending("t") == pending and await second.pending("2:t") == pending  # its own thread id
    assert await first.pending("t") is None
    # a typed decision stays with the card's agent even when another agent claims its words
    await turn(router, "t", "reject: first things first")
    assert (await router.current("t")).name == "second"
    # a message nobody claims stays with the thread's agent; a claimed one moves it
    assert (await router.choose("t", "hello")).name == "second"
    assert (await router.choose("t", "first: book boxing on Saturday")).name == "first"
    assert (await router.choose("new", "hello")).name == "first"  # a new thread: the default
    await router.store.aclose()
    again = AgentRouter(routes, RouteStore(f"sqlite+aiosqlite:///{tmp_path / 'routes.db'}"))
    assert (await again.current("t")).name == "second", "kept across router instances (a restart)"
    assert await again.owner("t") == "alice"
    await again.store.aclose()
