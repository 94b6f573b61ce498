"""What an agent service needs from an agent: turns in, typed `relais.events` out.

`TurnRunner` is the shape the Relais-protocol service (`POST /assistant`, SSE) serves: the coach's
runner, a runner of any LangGraph agent (`relais.agent_runner`), or a router between several
(`relais.agent_router`). `StaleInterrupt` is how any of them refuses a click on a prompt that is
no longer pending (the service answers 409). A thread's owner is kept in its checkpoints'
metadata under `OWNER_KEY`, so a thread written for one user is refused to another.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Any, Protocol

from langgraph.checkpoint.base import BaseCheckpointSaver

from relais.events import AgentEvent, InterruptEvent

OWNER_KEY = "relais_owner"  # checkpoint metadata: the user a thread belongs to


class StaleInterrupt(Exception):
    """A resume answered a prompt that is no longer the pending one (already answered, or none).

    Raised by `run_turn` before its first event, inside the thread's lock: one click, one resume.
    """

    def __init__(self, expected: str, pending: InterruptEvent | None) -> None:
        super().__init__(f"interrupt {expected} is not pending")
        self.expected = expected
        self.pending = pending


class TurnRunner(Protocol):
    """An agent as the agent service serves it."""

    engine: str

    def run_turn(
        self,
        thread_id: str,
        message: str,
        history: Iterable[Any] | None = None,
        user_id: str | None = None,
        interrupt_id: str | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """Text, tool calls, then an interrupt or an error, then `DoneEvent`; `StaleInterrupt`
        before any event when `interrupt_id` is not the pending prompt."""
        ...

    async def pending(self, thread_id: str) -> InterruptEvent | None:
        """The prompt the thread waits on, None when none."""
        ...

    async def owner(self, thread_id: str) -> str | None:
        """The user the thread was written for (None: unknown or no thread)."""
        ...


def thread_config(thread_id: str, owner: str | None = None, **extra: Any) -> dict[str, Any]:
    """A LangGraph run config for the thread; with `owner`, recorded in the checkpoint's metadata."""
    config: dict[str, Any] = {"configurable": {"thread_id": thread_id}, **extra}
    if owner:
        config["metadata"] = {OWNER_KEY: owner}
    return config


async def thread_owner(saver: BaseCheckpointSaver | None, thread_id: str) -> str | None:
    """The owner recorded in the thread's newest checkpoints (a rolled-back copy carries none)."""
    if saver is None:
        return None
    async for item in saver.alist(thread_config(thread_id), limit=10):
        owner = (item.metadata or {}).get(OWNER_KEY)
        if owner:
            return str(owner)
    return None


__all__ = ["OWNER_KEY", "StaleInterrupt", "TurnRunner", "thread_config", "thread_owner"]
