"""Receipts from a real coach run (the offline engine, a SQLite checkpointer), observed from
outside the graph exactly as the coach runner would: route receipts HEALTHY, human pauses
WAITING_ON_APPROVAL, a dropped context key CONTEXT_INCOMPLETE, and no message text anywhere."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from handoff_audit.builders import owner_id
from handoff_audit.classifier import VerdictCode, classify
from handoff_audit.langgraph_adapter import COACH_ROUTER_CONTRACT, GraphTurnAudit, message_text
from handoff_audit.receipt import assert_no_content, content_problems
from handoff_audit.recorder import ReceiptStore
from langchain_core.messages import HumanMessage

SEED_TURNS = [
    "Build muscle, lose fat — suggest a workout plan",
    "What should I eat to support this workout plan?",
    "I'm vegetarian, adjust the meal suggestion",
]


async def coach_turn(graph: Any, thread_id: str, text: str, *, drop: str | None = None):
    """One coach turn with the audit around it; returns (audit, receipts, reply text)."""
    from coach.constraints import constraints_from_messages
    from coach.router import route
    from langgraph.types import Command

    config = {"configurable": {"thread_id": thread_id}}
    before = await graph.aget_state(config)
    audit = GraphTurnAudit(
        thread_id=thread_id,
        contract=COACH_ROUTER_CONTRACT,
        intended=route(text, before.values.get("last_active_agent")),
        state_before=before,
    )
    payload = Command(resume=text) if before.interrupts else {"messages": [HumanMessage(text)]}
    async for mode, data in graph.astream(
        payload, config, stream_mode=["messages", "updates", "tasks"]
    ):
        audit.observe((mode, data))
    after = await graph.aget_state(config)
    found = constraints_from_messages(after.values["messages"])
    context = {
        "history": after.values["messages"],
        "goal": found.goal,
        "constraints": found.model_dump(),
    }
    if drop:
        context.pop(drop)
    now = datetime.now(UTC)
    receipts = audit.receipts(
        after, context=context, constraints=found, owner=owner_id("42"), ttl_s=3600, now=now
    )
    return audit, receipts, message_text(after.values["messages"][-1])


@pytest.mark.slow
async def test_seed_conversation_on_the_real_coach(tmp_path: Path) -> None:
    from coach.graph import build_coach_graph
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    store = ReceiptStore(tmp_path / "receipts.db", secrets=[])
    replies: list[str] = []
    async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "checkpoints.db")) as saver:
        graph = build_coach_graph(None, saver)
        for text in SEED_TURNS:
            audit, receipts, reply = await coach_turn(graph, "thread-seed", text)
            replies.append(reply)
            if audit.resumed_wait() and audit.previous_human_operation_id:
                assert store.resolve_wait(audit.previous_human_operation_id)
            for receipt in receipts:
                store.record(receipt, "thread-seed")
            route_r, wait_r = receipts
            assert classify(route_r).verdict is VerdictCode.HEALTHY, classify(route_r).to_dict()
            assert classify(wait_r).verdict is VerdictCode.WAITING_ON_APPROVAL, classify(
                wait_r
            ).to_dict()

    stored = store.receipts("thread-seed")
    routes = [r for r in stored if r.route_contract == "coach.router/v1"]
    assert [r.recipient for r in routes] == [
        "workout_advisor",
        "nutrition_advisor",
        "nutrition_advisor",
    ]
    assert all(r.tool_call_id and r.tool_call_id == r.tool_message_call_id for r in routes)
    assert (
        routes[2].result
        and routes[2].result.verifier == "no_meat_when_vegetarian+delivers_meal_plan"
    )
    assert routes[2].result.passed
    waits = [r for r in stored if r.route_contract == "coach.human/v1"]
    assert [w.final_state for w in waits] == [
        "complete",
        "complete",
        "waiting",
    ]  # answered waits closed
    assert all(w.wait and w.wait.reason == "constraints" and w.wait.resume_token_id for w in waits)
    for receipt in stored:
        assert content_problems(receipt) == []
        fragments = [
            *SEED_TURNS,
            "Anything I should take into account",
            str(tmp_path),
            "thread-seed",
        ]
        fragments += [line for reply in replies for line in reply.splitlines() if len(line) > 12]
        assert_no_content(receipt, fragments)
    later = datetime.now(UTC) + timedelta(hours=2)
    assert [classify(r, later).verdict.value for r in stored][
        -1
    ] == "UNCERTAIN"  # unanswered past its TTL


@pytest.mark.slow
async def test_real_coach_with_a_dropped_context_key_is_context_incomplete() -> None:
    from coach.graph import build_coach_graph
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_coach_graph(None, InMemorySaver())
    _, (route_r, _), _ = await coach_turn(graph, "t", SEED_TURNS[0], drop="goal")
    verdict = classify(route_r)
    assert verdict.verdict is VerdictCode.CONTEXT_INCOMPLETE
    assert verdict.boundary("context").reason == "missing required keys: goal"


@pytest.mark.slow
async def test_real_coach_knee_injury_is_verified_on_the_workout_reply() -> None:
    from coach.graph import build_coach_graph
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_coach_graph(None, InMemorySaver())
    _, (route_r, _), reply = await coach_turn(
        graph, "t", "I hurt my knee. Build muscle, 3 days a week, gym"
    )
    assert route_r.result and "no_lunges_with_knee_injury" in route_r.result.verifier
    assert route_r.result.passed, reply
    assert classify(route_r).verdict is VerdictCode.HEALTHY
