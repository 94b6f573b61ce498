"""The compiled coach graph: its shape, the seed conversation, constraints carried across turns."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.types import Command

from coach.graph import HUMAN, NUTRITION_TOOL_NODE, ROUTER, WORKOUT_TOOL_NODE, build_coach_graph
from coach.human import resume_text
from coach.plans import MealPlan, WorkoutPlan
from coach.state import NUTRITION, WORKOUT
from relais.testing import ScriptedChatModel, tool_call
from tests.coach.conftest import MEAT_AND_FISH, SEED_TURNS

CONFIG = {"configurable": {"thread_id": "seed"}}


def edges(graph: Any) -> set[tuple[str, str]]:
    return {(e.source, e.target) for e in graph.get_graph().edges}


def test_no_edge_ever_joins_the_two_advisors() -> None:
    graph = build_coach_graph()
    found = edges(graph)
    assert (WORKOUT, NUTRITION) not in found and (NUTRITION, WORKOUT) not in found
    # stronger: without the human node, neither advisor can reach the other at all
    reach: dict[str, set[str]] = {}
    for src, dst in found:
        if HUMAN not in (src, dst):
            reach.setdefault(src, set()).add(dst)

    def reachable(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in reach.get(todo.pop(), set()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    assert NUTRITION not in reachable(WORKOUT) and WORKOUT not in reachable(NUTRITION)


def test_the_cycle_is_human_router_advisor_tool_human() -> None:
    found = edges(build_coach_graph())
    assert ("__start__", ROUTER) in found and (HUMAN, ROUTER) in found
    assert {(ROUTER, WORKOUT), (ROUTER, NUTRITION)} <= found
    assert {(WORKOUT, WORKOUT_TOOL_NODE), (WORKOUT_TOOL_NODE, WORKOUT), (WORKOUT, HUMAN)} <= found
    assert {
        (NUTRITION, NUTRITION_TOOL_NODE),
        (NUTRITION_TOOL_NODE, NUTRITION),
        (NUTRITION, HUMAN),
    } <= found
    assert (WORKOUT, NUTRITION_TOOL_NODE) not in found and (
        NUTRITION,
        WORKOUT_TOOL_NODE,
    ) not in found
    assert not any(
        dst == "__end__" for _, dst in found
    )  # the graph always pauses at the human node


def _tool_result(state: dict[str, Any], name: str) -> str:
    return [m for m in state["messages"] if isinstance(m, ToolMessage) and m.name == name][
        -1
    ].content


async def test_seed_conversation_with_a_scripted_model() -> None:
    bound: list[list[str]] = []

    def call(name: str, args: dict[str, Any], cid: str) -> Any:
        def reply(messages: list[Any]) -> AIMessage:
            bound.append(list(model.bound_tools))
            return tool_call(name, args, cid)

        return reply

    model = ScriptedChatModel(
        [
            call("workout_plan", {"goal": "mixed"}, "c1"),
            "Your 4-day upper/lower plan, 3-4 sets of 8-12.",
            call("meal_plan", {"goal": "mixed"}, "c2"),
            "About 2,500 kcal, meals every 3-4 hours.",
            call("meal_plan", {}, "c3"),
            "A vegetarian day: tofu, paneer, lentils; snacks edamame, hummus.",
        ]
    )
    graph = build_coach_graph(model)
    agents = []
    state = await graph.ainvoke({"messages": [HumanMessage(SEED_TURNS[0])]}, CONFIG)
    agents.append(state["last_active_agent"])
    for text in SEED_TURNS[1:]:
        state = await graph.ainvoke(Command(resume=text), CONFIG)
        agents.append(state["last_active_agent"])

    assert agents == [WORKOUT, NUTRITION, NUTRITION]
    assert bound == [["workout_plan"], ["meal_plan"], ["meal_plan"]]  # exactly one tool per advisor
    assert len(model.calls) == 6
    # the third answer's model call sees the whole history, turn-1 goal included
    third = model.calls[4]
    assert isinstance(third[0], SystemMessage) and "nutrition advisor" in third[0].content
    assert "Do NOT design workouts" in third[0].content
    humans = [m.content for m in third if isinstance(m, HumanMessage)]
    assert humans == SEED_TURNS
    assert any(isinstance(m, ToolMessage) and m.name == "workout_plan" for m in third)
    assert "Do NOT give food" in model.calls[0][0].content
    # the tool honoured "vegetarian" though the model passed no diet argument
    plan = MealPlan.model_validate_json(_tool_result(state, "meal_plan"))
    assert plan.diet == "vegetarian" and plan.goal == "mixed"
    assert state["messages"][-1].content.startswith("A vegetarian day")
    snapshot = await graph.aget_state(CONFIG)
    assert snapshot.interrupts and snapshot.interrupts[0].value["agent"] == NUTRITION


async def test_seed_conversation_offline() -> None:
    graph = build_coach_graph(None)
    replies = []
    state = await graph.ainvoke({"messages": [HumanMessage(SEED_TURNS[0])]}, CONFIG)
    replies.append(state["messages"][-1].content)
    for text in SEED_TURNS[1:]:
        state = await graph.ainvoke(Command(resume=text), CONFIG)
        replies.append(state["messages"][-1].content)
    workout, food, vegetarian = replies
    assert "Upper body A" in workout and "4 × 8–10" in workout and "Cardio" in workout
    assert "kcal" in food and any(w in food.lower() for w in ("chicken", "salmon", "tuna"))
    lowered = vegetarian.lower()
    assert not [w for w in MEAT_AND_FISH if w in lowered]
    assert "build muscle and lose fat" in lowered and "vegetarian" in lowered
    assert "tofu" in lowered and "paneer" in lowered and "edamame" in lowered
    assert state["last_active_agent"] == NUTRITION


async def test_knee_injury_in_turn_one_changes_a_later_workout_answer() -> None:
    async def later_workout_answer(first: str) -> str:
        graph = build_coach_graph(None)
        cfg = {"configurable": {"thread_id": "k"}}
        await graph.ainvoke({"messages": [HumanMessage(first)]}, cfg)
        await graph.ainvoke(Command(resume="What should I eat to support this workout plan?"), cfg)
        state = await graph.ainvoke(
            Command(resume="Now give me the workout plan again, with more cardio"), cfg
        )
        assert state["last_active_agent"] == WORKOUT
        return state["messages"][-1].content

    hurt = (await later_workout_answer("Build muscle, lose fat — I have a knee injury")).lower()
    fine = (await later_workout_answer("Build muscle, lose fat")).lower()
    assert "lunge" in fine and "running" in fine
    assert "lunge" not in hurt and "jump" not in hurt and "running" not in hurt
    assert "knee" in hurt and ("stationary bike" in hurt or "cycling" in hurt)


async def test_knee_injury_reaches_the_tool_even_if_the_model_forgets_it() -> None:
    model = ScriptedChatModel([tool_call("workout_plan", {"goal": "mixed"}), "Here you go."])
    graph = build_coach_graph(model)
    state = await graph.ainvoke(
        {"messages": [HumanMessage("Build muscle. I have a bad knee.")]}, CONFIG
    )
    plan = WorkoutPlan.model_validate_json(_tool_result(state, "workout_plan"))
    assert plan.injuries == ["knee"]
    assert "lunge" not in plan.model_dump_json().lower()


async def test_interrupt_payload_is_localised_and_quick_choices_become_sentences() -> None:
    graph = build_coach_graph(None)
    cfg = {"configurable": {"thread_id": "fr"}}
    await graph.ainvoke(
        {"messages": [HumanMessage("Je veux prendre du muscle, propose un programme")]}, cfg
    )
    payload = (await graph.aget_state(cfg)).interrupts[0].value
    assert (
        payload["kind"] == "constraints"
        and payload["agent"] == WORKOUT
        and payload["language"] == "fr"
    )
    assert payload["choices"] == ["Blessure", "Allergie", "Végétarien", "Végan", "Rien à ajouter"]
    assert "blessure" in payload["prompt"]
    state = await graph.ainvoke(Command(resume="Végétarien"), cfg)
    assert state["messages"][-1].type == "ai"
    humans = [m for m in state["messages"] if m.type == "human"]
    assert humans[-1].content == "Je suis végétarien." and humans[-1].id == "human-2"
    assert state["last_active_agent"] == NUTRITION  # "végétarien" is a nutrition keyword
    assert "Journée" in state["messages"][-1].content or "journée" in state["messages"][-1].content


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Vegetarian", "I'm vegetarian."),
        ("vegan", "I'm vegan."),
        ("Injury", "I have an injury."),
        ("Allergy", "I have a food allergy."),
        ("Rien à ajouter", "Rien à ajouter."),
        ({"choice": "Vegan"}, "I'm vegan."),
        ({"text": "I train 3 days a week"}, "I train 3 days a week"),
        ("", "Nothing to add."),
        (None, "Nothing to add."),
        ("I'm allergic to soy", "I'm allergic to soy"),
    ],
)
def test_resume_text(value: Any, expected: str) -> None:
    assert resume_text(value, "en") == expected


async def test_nothing_to_add_gets_a_short_answer_without_a_new_plan() -> None:
    graph = build_coach_graph(None)
    await graph.ainvoke({"messages": [HumanMessage(SEED_TURNS[0])]}, CONFIG)
    before = len((await graph.aget_state(CONFIG)).values["messages"])
    state = await graph.ainvoke(Command(resume="Nothing to add"), CONFIG)
    new = state["messages"][before:]
    assert [m.type for m in new] == ["human", "ai"]  # no tool call this time
    assert "plan stands" in new[-1].content
    assert (await graph.aget_state(CONFIG)).interrupts  # and it asks again


async def test_unnamed_injury_is_asked_about_then_used() -> None:
    graph = build_coach_graph(None)
    await graph.ainvoke({"messages": [HumanMessage(SEED_TURNS[0])]}, CONFIG)
    state = await graph.ainvoke(Command(resume="Injury"), CONFIG)
    assert state["last_active_agent"] == WORKOUT
    assert "Which area is injured" in state["messages"][-1].content
    state = await graph.ainvoke(Command(resume="my shoulder"), CONFIG)
    reply = state["messages"][-1].content
    assert (
        "Which area" not in reply
        and "Shoulder-friendly" in reply
        and "overhead" not in reply.lower()
    )
