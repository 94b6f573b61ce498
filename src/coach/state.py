"""The one shared memory of a coach conversation: all messages and who answered last.

Memory is central, not per advisor: the nutrition advisor sees the goal the person gave the
workout advisor, because both read the same accumulated `messages`.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import MessagesState
from typing_extensions import (
    TypedDict,  # typing.TypedDict breaks a LangGraph server's schema export on 3.11
)

AgentName = Literal["workout_advisor", "nutrition_advisor"]
WORKOUT: AgentName = "workout_advisor"
NUTRITION: AgentName = "nutrition_advisor"
AGENTS: tuple[AgentName, AgentName] = (WORKOUT, NUTRITION)


class RouteRecord(TypedDict):
    """The router's decision as it made it: where the turn goes and the rule that fired.

    Written by the router node itself, so the handoff audit judges the route from what the graph
    declared (and the stream shows ran) instead of re-running the routing function.
    """

    destination: AgentName
    rule: str


class MultiAgentState(MessagesState):
    """`messages` (LangGraph's append reducer), the advisor in charge, the router's last decision.

    `last_active_agent` is the router's fallback when a message names neither domain
    ("tell me more"); it is absent on a brand-new thread. `route_decision` is overwritten by the
    router on every turn.
    """

    last_active_agent: AgentName | None
    route_decision: RouteRecord | None
