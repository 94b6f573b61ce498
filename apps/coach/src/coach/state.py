"""The one shared memory of a coach conversation: all messages and who answered last.

Memory is central, not per advisor: the nutrition advisor sees the goal the person gave the
workout advisor, because both read the same accumulated `messages`.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import MessagesState

AgentName = Literal["workout_advisor", "nutrition_advisor"]
WORKOUT: AgentName = "workout_advisor"
NUTRITION: AgentName = "nutrition_advisor"
AGENTS: tuple[AgentName, AgentName] = (WORKOUT, NUTRITION)


class MultiAgentState(MessagesState):
    """`messages` (LangGraph's append reducer) plus the advisor that answered last.

    `last_active_agent` is the router's fallback when a message names neither domain
    ("tell me more"); it is absent on a brand-new thread.
    """

    last_active_agent: AgentName | None
