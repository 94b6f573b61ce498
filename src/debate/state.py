"""The typed graph state. It holds the debate's progress and the active team's work in hand.

Private team material (persona, thinking notes, critique history) lives in the team's memory
files, not here. The only private items in the state are the active team's current draft and
last feedback, and both are cleared when the turn ends, before the other team runs.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal, TypedDict

from debate.schemas import Team

LOOP_LOCK_POLICY = "forfeit"
"""On loop-lock the team forfeits the turn: nothing is published for it, the debate goes on."""


class Draft(TypedDict):
    text: str
    evidence: list[str]


class TurnRecord(TypedDict):
    round: int
    team: Team
    outcome: Literal["approved", "forfeit"]
    attempts: int  # Persona→Thinking→Critique passes used


class LoopLockRecord(TypedDict):
    round: int
    team: Team
    attempts: int
    last_feedback: str
    policy: str


class PersonaDecision(TypedDict):
    round: int
    team: Team
    attempt: int
    decision: str
    changed: bool


class DebateState(TypedDict):
    motion: str
    rounds: int
    round: int  # 1-based; rounds + 1 once the debate is over
    team: Team  # whose turn it is
    attempt: int  # passes through the inner loop for the current argument
    draft: Draft | None
    feedback: str | None  # the critique's last rejection (active team only)
    suggestion: str | None  # the critique's suggested rewrite, if any
    is_approved: bool | None  # the critique's verdict, read by the conditional edges
    approved_text: str | None
    turns: Annotated[list[TurnRecord], operator.add]
    loop_locks: Annotated[list[LoopLockRecord], operator.add]
    persona_decisions: Annotated[list[PersonaDecision], operator.add]
    llm_calls: Annotated[int, operator.add]
    retries: Annotated[int, operator.add]


def initial_state(motion: str, rounds: int) -> DebateState:
    return DebateState(
        motion=motion,
        rounds=rounds,
        round=1,
        team="pros",
        attempt=0,
        draft=None,
        feedback=None,
        suggestion=None,
        is_approved=None,
        approved_text=None,
        turns=[],
        loop_locks=[],
        persona_decisions=[],
        llm_calls=0,
        retries=0,
    )
