"""The LangGraph adapter: tool protocol from hand-made message lists, task starts from stream parts,
and receipts from a real (small, coach-shaped) graph with an interrupt on a SQLite checkpointer."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from handoff_audit.builders import owner_id
from handoff_audit.classifier import VerdictCode, classify
from handoff_audit.graph_messages import (
    last_reply,
    last_speaker,
    message_text,
    tool_protocol,
    turn_messages,
    turn_number,
)
from handoff_audit.langgraph_adapter import GraphTurnAudit, RouteContract
from handoff_audit.receipt import assert_no_content, content_problems
from handoff_audit.recorder import ReceiptStore
from handoff_audit.task_log import TaskLog
from handoff_audit.verifiers import Check, TurnOutcome


def _call(call_id: str, name: str = "nutrition_plan") -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": {"diet": "vegetarian"}, "id": call_id}])


# --- messages -----------------------------------------------------------------------------------


def test_tool_protocol_closed_open_mismatched_and_absent() -> None:
    closed = [_call("c1"), ToolMessage("plan", tool_call_id="c1"), AIMessage("Here")]
    assert (
        tool_protocol(closed).tool_call_id == "c1"
        and tool_protocol(closed).tool_message_call_id == "c1"
    )

    still_open = [_call("c1"), AIMessage("Here")]
    assert (
        tool_protocol(still_open).tool_call_id,
        tool_protocol(still_open).tool_message_call_id,
    ) == ("c1", None)

    mismatched = [_call("c1"), ToolMessage("plan", tool_call_id="c9")]
    assert (
        tool_protocol(mismatched).tool_call_id,
        tool_protocol(mismatched).tool_message_call_id,
    ) == ("c1", None)

    two_one_open = [
        AIMessage(
            "",
            tool_calls=[
                {"name": "a", "args": {}, "id": "c1"},
                {"name": "b", "args": {}, "id": "c2"},
            ],
        ),
        ToolMessage("x", tool_call_id="c2"),
    ]
    assert tool_protocol(two_one_open).open_calls == ("c1",)

    orphan = [_call("c1"), ToolMessage("x", tool_call_id="c1"), ToolMessage("y", tool_call_id="c7")]
    assert (tool_protocol(orphan).tool_call_id, tool_protocol(orphan).tool_message_call_id) == (
        "c1",
        "c7",
    )

    assert tool_protocol([AIMessage("plain")]).tool_call_id is None


def test_turn_slicing_numbering_and_speakers() -> None:
    history = [
        SystemMessage("sys"),
        HumanMessage("Build muscle"),
        AIMessage("Plan", name="workout_advisor"),
        HumanMessage("What should I eat?"),
        _call("c1"),
        ToolMessage("t", tool_call_id="c1"),
        AIMessage(
            [{"type": "text", "text": "Meals"}, {"type": "image_url", "image_url": "x"}],
            name="nutrition_advisor",
        ),
    ]
    assert len(turn_messages(history)) == 3
    assert turn_number(history) == 3 and turn_number([]) == 1
    assert last_speaker(history, ["workout_advisor", "nutrition_advisor"]) == "nutrition_advisor"
    assert last_speaker(history[:3], ["workout_advisor", "nutrition_advisor"]) == "workout_advisor"
    assert last_speaker([AIMessage("anon")], ["workout_advisor"]) is None
    reply = last_reply(history)
    assert reply is not None and message_text(reply) == "Meals"


def test_task_log_reads_v2_parts_tuples_and_debug_timestamps() -> None:
    log = TaskLog()
    at = datetime(2026, 11, 29, 10, tzinfo=UTC)
    log.observe(
        {
            "type": "tasks",
            "ns": (),
            "data": {"id": "1", "name": "router", "input": {}, "triggers": ("branch:to:router",)},
        },
        at,
    )
    log.observe(
        ("tasks", {"id": "1", "name": "router", "error": None, "result": {}, "interrupts": []})
    )
    log.observe(
        {
            "type": "debug",
            "ns": (),
            "data": {
                "type": "task",
                "timestamp": "2026-11-29T10:00:03+00:00",
                "step": 2,
                "payload": {
                    "id": "2",
                    "name": "nutrition_advisor",
                    "input": {},
                    "triggers": ["branch:to:nutrition_advisor"],
                },
            },
        }
    )
    log.observe(
        (("sub:1",), "tasks", {"id": "3", "name": "inner", "input": {}, "triggers": []})
    )  # subgraph: ignored
    log.observe(("messages", (AIMessage("tok"), {})))  # other modes: ignored
    log.observe(
        (
            "tasks",
            {
                "id": "2",
                "name": "nutrition_advisor",
                "error": "boom",
                "result": {},
                "interrupts": [],
            },
        )
    )
    runs = log.runs()
    assert [r.name for r in runs] == ["router", "nutrition_advisor"]
    assert runs[0].started_at == at and runs[0].finished and not runs[0].error
    assert runs[1].started_at == datetime(2026, 11, 29, 10, 0, 3, tzinfo=UTC) and runs[1].error


# --- a coach-shaped graph -------------------------------------------------------------------------

INTERRUPT_PAYLOAD = {
    "prompt": "Anything I should know? An injury, an allergy, a diet?",
    "choices": ["Injury", "Allergy", "Vegetarian", "Nothing to add"],
    "kind": "constraints",
}
MEAT = re.compile(r"chicken|beef|tuna", re.IGNORECASE)


def route(text: str, last: str | None) -> str:
    """The test's deterministic router (the coach ships its own)."""
    if re.search(r"\b(eat|meal|food|vegetarian|protein)\b", text, re.IGNORECASE):
        return "nutrition_advisor"
    if re.search(r"\b(workout|train|squat|muscle)\b", text, re.IGNORECASE):
        return "workout_advisor"
    return last or "workout_advisor"


def profile(messages: list[Any]) -> dict[str, Any]:
    """Goal and constraints found in the conversation (names only go into receipts)."""
    text = " ".join(m.content for m in messages if isinstance(m, HumanMessage))
    goal = "muscle_fat_loss" if re.search(r"muscle", text, re.IGNORECASE) else None
    constraints = [c for c in ("vegetarian", "knee") if re.search(c, text, re.IGNORECASE)]
    return {"history": messages, "goal": goal, "constraints": constraints}


def toy_context(destination: str, received: dict[str, Any]) -> dict[str, Any]:
    """The toy contract's context reader: what the advisor's input state holds."""
    return profile(list(received.get("messages") or []))


def _constraints(outcome: TurnOutcome) -> list[str]:
    return profile(list(outcome.state.get("messages") or []))["constraints"]


TOY_CONTRACT = RouteContract(
    name="toy.router/v1",
    routes=("workout_advisor", "nutrition_advisor"),
    required_context={
        "workout_advisor": ("history", "constraints"),
        "nutrition_advisor": ("history", "constraints"),
    },
    default_agent="workout_advisor",
    context_of=toy_context,
    verifiers=(
        Check("answered", lambda o: bool(o.reply.strip())),
        Check(
            "no_meat_when_vegetarian",
            lambda o: not MEAT.search(o.reply),
            lambda o: "vegetarian" in _constraints(o),
        ),
        Check(
            "no_lunges_with_knee_injury",
            lambda o: "lunge" not in o.reply.lower(),
            lambda o: o.destination == "workout_advisor" and "knee" in _constraints(o),
        ),
    ),
)
"""A test contract: the domain checks belong to the graph's package, never to handoff_audit."""


def advisor(
    name: str, *, reply: Callable[[dict], str], close_tool: bool = True, set_control: bool = True
):
    def node(state: dict) -> dict:
        call_id = f"call_{name}_{len(state['messages'])}"
        out: list[Any] = [
            AIMessage("", name=name, tool_calls=[{"name": "plan", "args": {"x": 1}, "id": call_id}])
        ]
        if close_tool:
            out.append(ToolMessage("tool output", tool_call_id=call_id))
        out.append(AIMessage(reply(profile(state["messages"])), name=name))
        update: dict[str, Any] = {"messages": out}
        if set_control:
            update["last_active_agent"] = name
        return update

    return node


def workout_reply(p: dict) -> str:
    lunges = "" if "knee" in p["constraints"] else " Walking lunges 3x12."
    return f"Day 1 upper body: bench press 4 sets x 8-12 reps. 20 minutes cardio.{lunges}"


def nutrition_reply(p: dict) -> str:
    protein = "tofu and lentils" if "vegetarian" in p["constraints"] else "grilled chicken"
    return f"Breakfast: oats. Lunch: {protein}. Snack: edamame. About 2,300 kcal and 150 g protein per day."


def build_graph(
    checkpointer: Any,
    *,
    misroute: str | None = None,
    replies: dict | None = None,
    **advisor_kwargs: Any,
):
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.types import Command, interrupt

    class State(MessagesState):
        last_active_agent: str | None
        route_decision: dict | None

    def router(state: State) -> Command[Literal["workout_advisor", "nutrition_advisor"]]:
        goto = route(state["messages"][-1].content, state.get("last_active_agent"))
        decision = {"destination": goto, "rule": "test_keywords"}
        return Command(goto=misroute or goto, update={"route_decision": decision})

    def human(state: State) -> dict:
        answer = interrupt(INTERRUPT_PAYLOAD)
        return {"messages": [HumanMessage(answer)]}

    graph = StateGraph(State)
    graph.add_node("router", router)
    replies = {
        "workout_advisor": workout_reply,
        "nutrition_advisor": nutrition_reply,
        **(replies or {}),
    }
    graph.add_node(
        "workout_advisor",
        advisor(
            "workout_advisor",
            reply=replies["workout_advisor"],
            **advisor_kwargs.get("workout_advisor", {}),
        ),
    )
    graph.add_node(
        "nutrition_advisor",
        advisor(
            "nutrition_advisor",
            reply=replies["nutrition_advisor"],
            **advisor_kwargs.get("nutrition_advisor", {}),
        ),
    )
    graph.add_node("human", human)
    graph.add_edge(START, "router")
    graph.add_edge("workout_advisor", "human")
    graph.add_edge("nutrition_advisor", "human")
    graph.add_edge("human", "router")
    return graph.compile(checkpointer=checkpointer)


NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)


async def run_turn(
    graph: Any,
    thread_id: str,
    text: str,
    *,
    drop_context: str | None = None,
    modes: tuple[str, ...] = ("tasks",),
) -> tuple[GraphTurnAudit, list]:
    """One turn the way a service would run it: read state, route, stream, read state, audit."""
    from langgraph.types import Command

    config = {"configurable": {"thread_id": thread_id}}
    before = await graph.aget_state(config)
    paused = "human" in (before.next or ())
    contract = TOY_CONTRACT
    if drop_context:  # a producer that forgets one key of the handoff contract

        def dropped(destination: str, received: dict[str, Any]) -> dict[str, Any]:
            return {k: v for k, v in toy_context(destination, received).items() if k != drop_context}

        contract = dataclasses.replace(TOY_CONTRACT, context_of=dropped)
    audit = GraphTurnAudit(thread_id=thread_id, contract=contract, state_before=before)
    payload = Command(resume=text) if paused else {"messages": [HumanMessage(text)]}
    async for part in graph.astream(payload, config, stream_mode=list(modes), version="v2"):
        audit.observe(part)
    after = await graph.aget_state(config)
    receipts = audit.receipts(
        after,
        owner=owner_id("42"),
        ttl_s=3600,
        now=NOW,
    )
    return audit, receipts


SEED_TURNS = [
    "Build muscle, lose fat — suggest a workout plan",
    "What should I eat to support this workout plan?",
    "I'm vegetarian, adjust the meal suggestion",
]


@pytest.fixture
def sqlite_checkpointer(tmp_path: Path):
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    return AsyncSqliteSaver.from_conn_string(str(tmp_path / "checkpoints.db"))


async def test_seed_conversation_receipts_are_healthy_then_waiting(
    sqlite_checkpointer, tmp_path: Path
) -> None:
    store = ReceiptStore(tmp_path / "receipts.db", secrets=["relais-secret-token"])
    async with sqlite_checkpointer as saver:
        graph = build_graph(saver)
        recipients, resumed = [], []
        for text in SEED_TURNS:
            audit, receipts = await run_turn(graph, "thread-1", text, modes=("tasks", "debug"))
            if audit.resumed_wait() and audit.previous_human_operation_id:
                resumed.append(store.resolve_wait(audit.previous_human_operation_id, at=NOW))
            for receipt in receipts:
                store.record(receipt, "thread-1")
            route_r, wait_r = receipts
            recipients.append(route_r.recipient)
            assert classify(route_r, NOW).verdict is VerdictCode.HEALTHY, classify(
                route_r, NOW
            ).to_dict()
            assert classify(wait_r, NOW).verdict is VerdictCode.WAITING_ON_APPROVAL, classify(
                wait_r, NOW
            ).to_dict()
            assert route_r.result is not None and route_r.result.passed
            for r in receipts:
                assert content_problems(r) == []
                assert_no_content(
                    r,
                    [
                        *SEED_TURNS,
                        INTERRUPT_PAYLOAD["prompt"],
                        "tool output",
                        "Breakfast",
                        "muscle_fat_loss",
                        str(tmp_path),
                        "relais-secret-token",
                    ],
                )

    assert recipients == ["workout_advisor", "nutrition_advisor", "nutrition_advisor"]
    assert resumed == [True, True]
    stored = store.receipts("thread-1")
    assert len(stored) == 6
    verdicts = [classify(r, NOW + timedelta(hours=2)).verdict.value for r in stored]
    # Answered waits were closed; only the last one is still open and, two hours on, past its deadline.
    assert verdicts == ["HEALTHY"] * 5 + ["UNCERTAIN"]
    last_route = stored[4]
    assert last_route.result and last_route.result.verifier == "answered+no_meat_when_vegetarian"
    assert [r.route_rule for r in stored[::2]] == ["test_keywords"] * 3
    assert (last_route.sender, last_route.control_before) == (
        "nutrition_advisor",
        "nutrition_advisor",
    )
    assert (
        stored[1].wait
        and stored[1].wait.reason == "constraints"
        and stored[1].wait.owner == "user:42"
    )


async def test_first_turn_from_a_new_thread_uses_the_contract_start_agent() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(InMemorySaver())
    audit, (route_r, _) = await run_turn(graph, "t-new", "Hello")
    assert (route_r.sender, route_r.control_before, route_r.recipient) == (
        "workout_advisor",
        "workout_advisor",
        "workout_advisor",
    )
    assert audit.turn == 1 and not audit.resumed_wait()


async def test_dropping_a_context_key_is_context_incomplete() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(InMemorySaver())
    _, (route_r, _) = await run_turn(graph, "t", SEED_TURNS[0], drop_context="constraints")
    verdict = classify(route_r, NOW)
    assert verdict.verdict is VerdictCode.CONTEXT_INCOMPLETE
    assert verdict.boundary("context").reason == "missing required keys: constraints"


async def test_a_key_the_contract_does_not_require_is_not_an_alarm() -> None:
    """No goal stated: the contract does not require one, so the handoff is healthy."""
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(InMemorySaver())
    _, (route_r, _) = await run_turn(graph, "t", "What should I eat?")
    assert "goal" not in route_r.context_keys_present
    assert classify(route_r, NOW).verdict is VerdictCode.HEALTHY


async def test_graph_going_elsewhere_than_the_router_contract_is_route_rejected() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(InMemorySaver(), misroute="workout_advisor")
    await run_turn(graph, "t", SEED_TURNS[0])
    _, (route_r, _) = await run_turn(graph, "t", SEED_TURNS[1])
    assert (route_r.recipient, route_r.goto) == ("nutrition_advisor", "workout_advisor")
    assert classify(route_r, NOW).verdict is VerdictCode.ROUTE_REJECTED


async def test_advisor_that_forgets_the_control_variable_is_stale_control() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(InMemorySaver(), nutrition_advisor={"set_control": False})
    await run_turn(graph, "t", SEED_TURNS[0])
    _, (route_r, _) = await run_turn(graph, "t", SEED_TURNS[1])
    assert route_r.control_after == "workout_advisor"
    assert classify(route_r, NOW).verdict is VerdictCode.STALE_CONTROL


async def test_unanswered_tool_call_is_open_tool_protocol() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(InMemorySaver(), workout_advisor={"close_tool": False})
    _, (route_r, _) = await run_turn(graph, "t", SEED_TURNS[0])
    assert route_r.tool_call_id and route_r.tool_message_call_id is None
    assert classify(route_r, NOW).verdict is VerdictCode.OPEN_TOOL_PROTOCOL


async def test_meat_for_a_vegetarian_is_false_complete() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    def careless(p: dict) -> str:
        return "Breakfast: eggs. Lunch: grilled chicken. 2,300 kcal, 150 g protein per day."

    graph = build_graph(InMemorySaver(), replies={"nutrition_advisor": careless})
    for text in SEED_TURNS[:2]:
        await run_turn(graph, "t", text)
    _, (route_r, _) = await run_turn(graph, "t", SEED_TURNS[2])
    assert route_r.result and not route_r.result.passed
    assert classify(route_r, NOW).verdict is VerdictCode.FALSE_COMPLETE


async def test_knee_injury_verifier_runs_on_workout_turns() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(InMemorySaver())
    _, (ok, _) = await run_turn(graph, "t", "I have a knee injury, build muscle with a workout")
    assert ok.result and "no_lunges_with_knee_injury" in ok.result.verifier and ok.result.passed
    assert classify(ok, NOW).verdict is VerdictCode.HEALTHY


async def test_knee_injury_ignored_is_false_complete() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(
        InMemorySaver(),
        replies={"workout_advisor": lambda p: "Legs: walking lunges 3x12, box jumps, 4 sets."},
    )
    _, (route_r, _) = await run_turn(graph, "t", "Knee injury here; build muscle with a workout")
    assert route_r.result and route_r.result.verifier == "answered+no_lunges_with_knee_injury"
    assert classify(route_r, NOW).verdict is VerdictCode.FALSE_COMPLETE


async def test_updates_only_stream_still_proves_the_route_but_not_the_wait_start() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(InMemorySaver())
    _, (route_r, wait_r) = await run_turn(graph, "t", SEED_TURNS[0], modes=("updates",))
    # the router's decision and the node that ran are in the updates; what the advisor received is not
    assert (route_r.recipient, route_r.goto) == ("workout_advisor", "workout_advisor")
    assert classify(route_r, NOW).verdict is VerdictCode.CONTEXT_INCOMPLETE
    assert wait_r.destination_start is None  # no task event: the human node's start is unproven
    assert classify(wait_r, NOW).verdict is VerdictCode.ROUTE_REJECTED


async def test_no_stream_evidence_at_all_is_not_healthy() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    graph = build_graph(InMemorySaver())
    _, (route_r, _) = await run_turn(graph, "t", SEED_TURNS[0], modes=("messages",))
    assert route_r.goto is None and route_r.destination_start is None
    assert classify(route_r, NOW).verdict is VerdictCode.ROUTE_REJECTED


async def test_a_failing_advisor_is_not_reported_healthy() -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    def broken(p: dict) -> str:
        raise RuntimeError("tool backend down")

    graph = build_graph(InMemorySaver(), replies={"workout_advisor": broken})
    config = {"configurable": {"thread_id": "t"}}
    audit = GraphTurnAudit(
        thread_id="t", contract=TOY_CONTRACT, state_before=await graph.aget_state(config)
    )
    with pytest.raises(RuntimeError):
        async for part in graph.astream(
            {"messages": [HumanMessage("workout")]}, config, stream_mode=["tasks"], version="v2"
        ):
            audit.observe(part)
    after = await graph.aget_state(config)
    receipts = audit.receipts(after, now=NOW)
    assert len(receipts) == 1  # no interrupt, no waiting receipt
    assert receipts[0].result and receipts[0].result.verifier == "destination_finished"
    # the advisor crashed at once: admitted, never began work (control defaults to it)
    assert receipts[0].destination_start is None
    assert classify(receipts[0], NOW).verdict is VerdictCode.DESTINATION_NOT_STARTED


async def test_record_closes_the_answered_wait_and_stores_the_turn(tmp_path: Path) -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    graph = build_graph(InMemorySaver())
    store = ReceiptStore(tmp_path / "r.db", secrets=[])
    config = {"configurable": {"thread_id": "t"}}
    for text in SEED_TURNS[:2]:
        before = await graph.aget_state(config)
        audit = GraphTurnAudit(thread_id="t", contract=TOY_CONTRACT, state_before=before)
        payload = Command(resume=text) if before.next else {"messages": [HumanMessage(text)]}
        async for part in graph.astream(payload, config, stream_mode=["tasks"], version="v2"):
            audit.observe(part)
        after = await graph.aget_state(config)
        audit.record(
            store,
            after,
            owner=owner_id("42"),
            ttl_s=60,
            now=NOW,
        )
    stored = store.receipts("t")
    assert [r.route_contract for r in stored] == ["toy.router/v1", "graph.human/v1"] * 2
    later = NOW + timedelta(hours=1)
    assert [classify(r, later).verdict.value for r in stored] == [
        "HEALTHY",
        "HEALTHY",
        "HEALTHY",
        "UNCERTAIN",
    ]
    assert stored[1].result and stored[1].result.verifier == "resumed_by_owner"
