"""CoachRunner, the one adapter: graph output → typed events; start, resume or recover a thread."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from coach.graph import build_coach_graph
from coach.plans import WorkoutPlan, WorkoutRequest
from coach.runner import CoachRunner, format_tool_call
from coach.workout_rules import RuleBasedWorkoutProvider
from relais.events import DoneEvent, ErrorEvent, InterruptEvent, TextChunk, ToolCallEvent
from relais.testing import ScriptedChatModel, tool_call
from tests.coach.conftest import SEED_TURNS, collect, kinds, text_of


def offline_runner(**kwargs: Any) -> CoachRunner:
    return CoachRunner(build_coach_graph(None, **kwargs))


async def test_offline_turn_events() -> None:
    runner = offline_runner()
    events = await collect(runner, "t", SEED_TURNS[0])
    assert kinds(events) == ["ToolCallEvent", "TextChunk", "InterruptEvent", "DoneEvent"]
    assert events[0] == ToolCallEvent("workout_plan(goal=mixed)", name="workout_plan")
    chunks = [e for e in events if isinstance(e, TextChunk)]
    assert len(chunks) > 20  # streamed in pieces, not one blob
    assert text_of(events).startswith("## Your training plan")
    interrupt = next(e for e in events if isinstance(e, InterruptEvent))
    assert interrupt.kind == "constraints" and "Vegetarian" in interrupt.choices
    assert (
        interrupt.payload["agent"] == "workout_advisor"
        and interrupt.prompt == interrupt.payload["prompt"]
    )


async def test_model_reply_is_streamed_token_by_token() -> None:
    reply = "Here is your four day upper lower plan with two cardio sessions."
    model = ScriptedChatModel(
        [tool_call("workout_plan", {"goal": "mixed", "days_per_week": 4}), reply]
    )
    runner = CoachRunner(build_coach_graph(model))
    events = await collect(runner, "t", SEED_TURNS[0])
    assert kinds(events) == ["ToolCallEvent", "TextChunk", "InterruptEvent", "DoneEvent"]
    assert events[0].message == "workout_plan(goal=mixed, days_per_week=4)"
    assert text_of(events) == reply
    assert (
        sum(isinstance(e, TextChunk) for e in events) == len(reply.split()) * 2 - 1
    )  # words + spaces


async def test_turns_resume_the_paused_run_and_never_restart_it() -> None:
    runner = offline_runner()
    inputs: list[Any] = []
    astream = runner.graph.astream

    def recording_astream(graph_input: Any, *args: Any, **kwargs: Any) -> Any:
        inputs.append(graph_input)
        return astream(graph_input, *args, **kwargs)

    runner.graph.astream = recording_astream  # type: ignore[method-assign]
    counts = []
    for text in SEED_TURNS:
        events = await collect(runner, "t", text)
        assert isinstance(events[-1], DoneEvent) and any(
            isinstance(e, InterruptEvent) for e in events
        )
        state = await runner.state("t")
        assert state["paused"] and state["next"] == ["human"]
        counts.append((state["messages"], state["human_messages"], state["last_active_agent"]))
    assert counts == [
        (4, 1, "workout_advisor"),
        (8, 2, "nutrition_advisor"),
        (12, 3, "nutrition_advisor"),
    ]
    # one run, resumed twice with the user's message — never a fresh start
    assert isinstance(inputs[0], dict) and [type(i).__name__ for i in inputs[1:]] == ["Command"] * 2
    assert [i.resume for i in inputs[1:]] == SEED_TURNS[1:]
    config = {"configurable": {"thread_id": "t"}}
    sources = [c.metadata.get("source") async for c in runner.graph.aget_state_history(config)]
    assert sources == ["loop"] * 3  # durability="exit": one checkpoint per turn, at the pause
    history = await runner.history("t")
    assert [h["role"] for h in history] == ["user", "assistant"] * 3
    assert [h["content"] for h in history if h["role"] == "user"] == SEED_TURNS


async def test_node_error_gives_error_then_done_and_the_thread_stays_usable() -> None:
    model = ScriptedChatModel(
        [
            tool_call("workout_plan", {"goal": "mixed"}),
            "Workout plan.",
            RuntimeError("provider exploded with key sk-SECRET-123"),
            tool_call("meal_plan", {}),
            "Meal plan.",
        ]
    )
    runner = CoachRunner(build_coach_graph(model))
    await collect(runner, "t", SEED_TURNS[0])
    events = await collect(runner, "t", SEED_TURNS[1])
    assert kinds(events) == ["ErrorEvent", "InterruptEvent", "DoneEvent"]  # re-asked after the roll-back
    assert "sk-SECRET" not in events[0].message and "send your message again" in events[0].message
    state = await runner.state("t")  # rolled back: paused at the same question, no trace
    assert state["paused"] and state["human_messages"] == 1
    assert state["last_active_agent"] == "workout_advisor"

    events = await collect(runner, "t", SEED_TURNS[2])  # resumes the pause, routed, answered
    assert kinds(events) == ["ToolCallEvent", "TextChunk", "InterruptEvent", "DoneEvent"]
    assert text_of(events) == "Meal plan."
    state = await runner.state("t")
    assert (
        state["paused"]
        and state["human_messages"] == 2
        and state["last_active_agent"] == "nutrition_advisor"
    )


async def test_error_message_follows_the_language() -> None:
    runner = CoachRunner(build_coach_graph(ScriptedChatModel([RuntimeError("boom")])))
    events = await collect(runner, "fr", "Propose-moi un programme de musculation")
    assert isinstance(events[0], ErrorEvent) and "Désolé" in events[0].message


async def test_a_failed_tool_leaves_no_dangling_call_after_recovery() -> None:
    class FlakyProvider:
        calls = 0

        def workout_plan(self, request: WorkoutRequest) -> WorkoutPlan:
            FlakyProvider.calls += 1
            if FlakyProvider.calls == 1:
                raise ConnectionError("fitness API down")
            return RuleBasedWorkoutProvider().workout_plan(request)

    runner = offline_runner(workout_provider=FlakyProvider())
    events = await collect(runner, "t", SEED_TURNS[0])
    assert kinds(events) == ["ToolCallEvent", "ErrorEvent", "DoneEvent"]
    assert not (await runner.state("t"))["exists"]  # the failed first turn left nothing
    events = await collect(runner, "t", SEED_TURNS[0])  # the person sends it again
    assert "Upper body A" in text_of(events) and isinstance(events[-2], InterruptEvent)
    snapshot = await runner.graph.aget_state({"configurable": {"thread_id": "t"}})
    messages = snapshot.values["messages"]
    calls = [c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls]
    answered = [m.tool_call_id for m in messages if isinstance(m, ToolMessage)]
    assert sorted(calls) == sorted(answered)


async def test_history_seeds_a_new_thread_only() -> None:
    runner = offline_runner()
    history = [
        {"role": "user", "content": "I have a bad knee"},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": SEED_TURNS[0]},
    ]
    events = await collect(runner, "t", SEED_TURNS[0], history=history)
    assert "Knee-friendly" in text_of(events)
    state = await runner.state("t")
    assert state["human_messages"] == 2  # the repeated current message was not duplicated
    await collect(runner, "t", "ok", history=[{"role": "user", "content": "I'm vegan"}])
    assert (await runner.state("t"))["human_messages"] == 3  # history ignored on an existing thread


async def test_concurrent_turns_on_one_thread_are_serialised() -> None:
    runner = offline_runner()
    first, second = await asyncio.gather(
        collect(runner, "t", SEED_TURNS[0]), collect(runner, "t", SEED_TURNS[1])
    )
    assert not any(isinstance(e, ErrorEvent) for e in first + second)
    state = await runner.state("t")
    assert (
        state["human_messages"] == 2
        and state["paused"]
        and state["last_active_agent"] == "nutrition_advisor"
    )


async def test_threads_are_independent() -> None:
    runner = offline_runner()
    await collect(runner, "a", "I'm vegan, what should I eat?")
    await collect(runner, "b", SEED_TURNS[0])
    assert (await runner.state("a"))["last_active_agent"] == "nutrition_advisor"
    assert (await runner.state("b"))["last_active_agent"] == "workout_advisor"
    assert (await runner.state("nobody"))["exists"] is False


async def test_open_and_create_use_the_checkpointer(tmp_path) -> None:
    db = tmp_path / "nested" / "cp.db"
    async with CoachRunner.open(model=None, checkpoint_target=str(db)) as runner:
        await collect(runner, "t", SEED_TURNS[0])
        assert runner.engine == "offline"
    assert db.exists()
    runner = await CoachRunner.create(model=None, checkpoint_target=str(db))
    try:
        assert (await runner.state("t"))["messages"] == 4
    finally:
        await runner.aclose()


def test_format_tool_call() -> None:
    assert (
        format_tool_call(
            "meal_plan", {"goal": "mixed", "diet": None, "allergies": ["soy", "sesame"]}
        )
        == "meal_plan(goal=mixed, allergies=[soy, sesame])"
    )
    assert format_tool_call("workout_plan", {}) == "workout_plan()"


async def test_transient_provider_errors_are_retried_then_reported() -> None:
    from relais.retry import RetryPolicy

    flaky = ScriptedChatModel(
        [TimeoutError("slow"), tool_call("workout_plan", {"goal": "mixed"}), "Plan."]
    )
    runner = CoachRunner(build_coach_graph(flaky, retry=RetryPolicy.no_wait(3)))
    events = await collect(runner, "t", SEED_TURNS[0])
    assert kinds(events) == ["ToolCallEvent", "TextChunk", "InterruptEvent", "DoneEvent"]
    assert len(flaky.calls) == 3  # the timeout was retried

    down = ScriptedChatModel([TimeoutError("slow")] * 3)
    runner = CoachRunner(build_coach_graph(down, retry=RetryPolicy.no_wait(3)))
    events = await collect(runner, "t", SEED_TURNS[0])
    assert kinds(events) == ["ErrorEvent", "DoneEvent"] and len(down.calls) == 3  # a new thread: nothing to re-ask
    state = await runner.state("t")
    assert not state["exists"] and state["human_messages"] == 0  # state unchanged: no thread yet
