"""The coach graph: human → router → advisor → optional tool → advisor → human, forever.

    START → router ─┬→ workout_advisor ⇄ workout_tool
                    └→ nutrition_advisor ⇄ nutrition_tool
    each advisor → human → router

No edge ever joins the two advisors: every hand-over goes through the human node (where the
person can add a constraint) and the router (which decides in the open). The graph needs a
checkpointer for `interrupt()`; without one it gets an in-memory saver (tests, notebooks).
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode

from coach.advisors import make_advisor, wants_tool
from coach.human import human_node
from coach.plans import NutritionProvider, WorkoutProvider
from coach.router import next_advisor, router_node
from coach.state import NUTRITION, WORKOUT, MultiAgentState
from coach.tools import make_meal_tool, make_workout_tool
from relais.retry import RetryPolicy

ROUTER, HUMAN = "router", "human"
WORKOUT_TOOL_NODE, NUTRITION_TOOL_NODE = "workout_tool", "nutrition_tool"
ADVISOR_TOOL_NODES = {WORKOUT: WORKOUT_TOOL_NODE, NUTRITION: NUTRITION_TOOL_NODE}


def _after(advisor: str) -> Any:
    tool_node = ADVISOR_TOOL_NODES[advisor]

    def after_advisor(state: dict[str, Any]) -> str:
        messages = state.get("messages", [])
        return tool_node if messages and wants_tool(messages[-1]) else HUMAN

    after_advisor.__name__ = f"after_{advisor}"
    return after_advisor


def build_coach_graph(
    model: BaseChatModel | None = None,
    checkpointer: BaseCheckpointSaver | None = None,
    *,
    workout_provider: WorkoutProvider | None = None,
    nutrition_provider: NutritionProvider | None = None,
    retry: RetryPolicy | None = None,
    served: bool = False,
) -> CompiledStateGraph:
    """Compile the coach. `model=None` is the offline engine; providers replace the rule tools;
    `retry` re-asks the model on transient provider errors; `served=True` compiles without a
    checkpointer (a LangGraph server refuses a graph that brings its own)."""
    workout_tool = make_workout_tool(workout_provider)
    meal_tool = make_meal_tool(nutrition_provider)

    builder = StateGraph(MultiAgentState)
    builder.add_node(ROUTER, router_node)
    builder.add_node(WORKOUT, make_advisor(WORKOUT, workout_tool, model, retry))
    builder.add_node(NUTRITION, make_advisor(NUTRITION, meal_tool, model, retry))
    builder.add_node(WORKOUT_TOOL_NODE, ToolNode([workout_tool]))
    builder.add_node(NUTRITION_TOOL_NODE, ToolNode([meal_tool]))
    builder.add_node(HUMAN, human_node)

    builder.add_edge(START, ROUTER)
    builder.add_conditional_edges(ROUTER, next_advisor, {WORKOUT: WORKOUT, NUTRITION: NUTRITION})
    for advisor, tool_node in ADVISOR_TOOL_NODES.items():
        builder.add_conditional_edges(
            advisor, _after(advisor), {tool_node: tool_node, HUMAN: HUMAN}
        )
        builder.add_edge(tool_node, advisor)
    builder.add_edge(HUMAN, ROUTER)
    if served:
        return builder.compile(name="coach")
    return builder.compile(
        checkpointer=checkpointer if checkpointer is not None else InMemorySaver(), name="coach"
    )


__all__ = ["HUMAN", "NUTRITION_TOOL_NODE", "ROUTER", "WORKOUT_TOOL_NODE", "build_coach_graph"]
