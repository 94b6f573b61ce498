"""A scripted debate: one callable answering each node from what its prompt says.

It reads only the first line of the system prompt (`You are the X agent of the Y team`) and
the `Round r of N` line, i.e. the same things a human reading the log would use.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

from relais.testing import ScriptedChatModel

_ROLE = re.compile(r"You are the (\w+) agent of the (\w+) team")
_ROUND = re.compile(r"Round (\d+) of (\d+)")


@dataclass(frozen=True)
class Call:
    node: str
    team: str
    round: int
    prompt: str


def parse_call(messages: list[BaseMessage]) -> Call:
    system = str(messages[0].content)
    role = _ROLE.search(system)
    rnd = _ROUND.search(system)
    assert role and rnd, f"not a debate prompt: {system[:120]!r}"
    prompt = "\n".join(str(m.content) for m in messages)
    return Call(role.group(1).lower(), role.group(2).lower(), int(rnd.group(1)), prompt)


Handler = Callable[
    [Call, int], Any
]  # (call, how many times this node/team/round was called before) -> reply


def default_draft(call: Call, n: int) -> Any:
    return {
        "argument": f"{call.team} draft r{call.round}",
        "evidence": [f"{call.team} source {call.round}"],
    }


def default_persona(call: Call, n: int) -> Any:
    return {
        "decision": "evolve"
        if "(none yet)" in call.prompt.split("## Your persona", 1)[1][:40]
        else "keep",
        "persona": {
            "name": f"{call.team} persona",
            "identity": "a careful analyst",
            "strategy": "attack the weakest premise",
            "constraints": ["no ad hominem"],
        },
        "rationale": "fits the opponent's latest move",
    }


def default_thinking(call: Call, n: int) -> Any:
    return {
        "logical_gaps": ["gap"],
        "weak_evidence": [],
        "rhetorical_inconsistencies": [],
        "notes": "private notes",
        "revised_argument": f"{call.team} argument r{call.round} pass {n + 1}",
        "evidence": [f"{call.team} source {call.round}"],
    }


def approve(call: Call, n: int) -> Any:
    return {
        "is_approved": True,
        "critique_feedback": "no reason to reject survives",
        "revised_argument": None,
    }


@dataclass
class DebateScript:
    """Per-node handlers; records every call it answered."""

    draft: Handler = default_draft
    persona: Handler = default_persona
    thinking: Handler = default_thinking
    critique: Handler = approve
    log: list[Call] = field(default_factory=list)

    def __call__(self, messages: list[BaseMessage]) -> Any:
        call = parse_call(messages)
        n = sum(
            1 for c in self.log if (c.node, c.team, c.round) == (call.node, call.team, call.round)
        )
        self.log.append(call)
        return getattr(self, call.node)(call, n)

    def model(self) -> ScriptedChatModel:
        return ScriptedChatModel(script=[self], repeat_last=True)

    def nodes(self, team: str | None = None) -> list[str]:
        return [f"{c.team}_{c.node}" for c in self.log if team is None or c.team == team]


def factory_for(model: Any, seen: list[dict[str, Any]] | None = None) -> Callable[..., Any]:
    """A factory with `chat_model`'s keywords that always returns `model` (records the kwargs)."""

    def factory(**kwargs: Any) -> Any:
        if seen is not None:
            seen.append(kwargs)
        return model

    return factory


def fast_config(**overrides: Any) -> Any:
    """A config with zero retry waits (the retry logic is identical, only the sleeps are 0)."""
    from debate.config import DebateConfig

    values: dict[str, Any] = dict(
        rounds=2,
        max_retries=3,
        retry_multiplier=0,
        retry_wait_min=0,
        retry_wait_max=0,
        refinement_cap=3,
        call_timeout_s=None,
    )
    values.update(overrides)
    return DebateConfig(**values)


async def collect(stream: Any) -> list[Any]:
    """Drain an event stream (closing it properly)."""
    events = []
    try:
        async for event in stream:
            events.append(event)
    finally:
        await stream.aclose()
    return events


class ProviderError(Exception):
    """Looks like a provider SDK error: carries an HTTP status code."""

    def __init__(self, status_code: int, message: str = "provider error") -> None:
        super().__init__(f"{status_code} {message}")
        self.status_code = status_code
