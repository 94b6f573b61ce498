"""Evidence collector for the orchestrator's forward to the external agent (NORMAL → ALTER).

The six boundaries, mapped onto that handoff:

- route: the forward contract declares `rag_assistant` and `external_agent`; `goto` is the agent
  the classifier's mode decision sends the turn to;
- control: the thread's mode in the *session* names the sender; the mode read back from the
  *persisted thread metadata* before and after the switch must agree (a failed `update_thread`
  is exactly the stale control the seed warns about);
- tool protocol: not a tool call (null ids);
- context: the keys the request carried (`message`, `history`, `user_id`, optional `thread_id`);
- destination: the first event the agent itself sent (a client-side connection error is not a start);
- result: `done` received without an error event.

Pure Python over `relais.events`: no Chainlit, no HTTP, so the orchestrator wraps its stream with it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from handoff_audit.builders import ReceiptBuilder, new_operation_id, utcnow
from handoff_audit.receipt import Receipt
from relais.events import DoneEvent, ErrorEvent, InterruptEvent, TextChunk, ToolCallEvent

FORWARD_CONTRACT = "orchestrator.forward/v1"
MODE_AGENTS: dict[str, str] = {"NORMAL": "rag_assistant", "ALTER": "external_agent"}
FORWARD_ROUTES: tuple[str, ...] = ("rag_assistant", "external_agent")
FORWARD_CONTEXT_KEYS: tuple[str, ...] = ("message", "history", "user_id")
DONE_VERIFIER = "done_without_error"
AGENT_ERROR_CODES = frozenset({"failed", "agent_error"})
"""`ErrorEvent.code`s that mean the agent itself answered with an error (so it did start)."""


def mode_agent(mode: str | None) -> str | None:
    """The agent that holds control in a thread mode (`None`/unknown mode → `None`)."""
    return MODE_AGENTS.get(str(mode).upper()) if mode else None


class ForwardAudit:
    """Collects one forward's evidence; `receipt()` can be called at any time (in progress or done)."""

    def __init__(
        self,
        *,
        thread_id: str,
        turn: int | str,
        session_mode: str | None,
        attempt: int = 1,
        route_contract: str = FORWARD_CONTRACT,
        required_context_keys: Sequence[str] = FORWARD_CONTEXT_KEYS,
        agent_error_codes: Iterable[str] = AGENT_ERROR_CODES,
    ) -> None:
        self.attempt = attempt
        self._agent_error_codes = frozenset(agent_error_codes)
        self._builder = ReceiptBuilder(
            operation_id=new_operation_id(thread_id, turn, route_contract),
            route_contract=route_contract,
            sender=mode_agent(session_mode or "NORMAL"),
            recipient=MODE_AGENTS["ALTER"],
            declared_routes=list(FORWARD_ROUTES),
            required_context_keys=list(required_context_keys),
        )
        self._persisted_before: str | None = None
        self._persisted_after: str | None = None
        self.done = False
        self.error = False
        self.finished = False

    @property
    def operation_id(self) -> str:
        return self._builder.operation_id

    # --- evidence, in the order the orchestrator learns it ---------------------------------
    def decided(self, mode: str) -> None:
        """The classifier's (or the thread's) decision: where the turn goes."""
        self._builder.routed(mode_agent(mode))

    def persisted(self, *, before: str | None, after: str | None) -> None:
        """Thread modes read from the data layer before the switch and read back after it.

        A thread with no mode stored yet is NORMAL (that is how the app reads it too).
        """
        self._builder.control(mode_agent(before or "NORMAL"), mode_agent(after or "NORMAL"))

    def sent(
        self,
        *,
        message: str | None,
        user_id: str | None,
        history: Sequence[Any] | None,
        thread_id: str | None = None,
        **extra: Any,
    ) -> None:
        """The request's context: only which keys carried a value is kept (an empty history counts)."""
        self._builder.context(
            {
                "message": message,
                "history": history,
                "user_id": user_id,
                "thread_id": thread_id,
                **extra,
            }
        )

    def observe(self, event: Any, at: datetime | None = None) -> None:
        """Feed every event of the agent's stream (before the orchestrator adds its own `done`)."""
        if self.finished:
            return
        is_agent_error = isinstance(event, ErrorEvent) and event.code in self._agent_error_codes
        if (
            isinstance(event, (TextChunk, ToolCallEvent, InterruptEvent, DoneEvent, str))
            or is_agent_error
        ):
            self._builder.started(MODE_AGENTS["ALTER"], at or utcnow(), self.attempt)
        if isinstance(event, ErrorEvent):
            self.error = True
        if isinstance(event, DoneEvent):
            self.done = True
            self.finish(at)

    def finish(self, at: datetime | None = None) -> None:
        """The stream ended (with or without `done`): verify and mark the forward complete."""
        if self.finished:
            return
        self.finished = True
        self._builder.verified(
            DONE_VERIFIER, self.done and not self.error, at or utcnow()
        ).complete()

    async def watch(self, events: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """Pass the agent's events through unchanged while observing them; finishes at the end."""
        try:
            async for event in events:
                self.observe(event)
                yield event
        finally:
            self.finish()

    def receipt(self) -> Receipt:
        return self._builder.build()


def forward_receipt(
    *,
    thread_id: str,
    turn: int | str,
    session_mode: str | None,
    decided_mode: str,
    persisted_before: str | None,
    persisted_after: str | None,
    context: Mapping[str, Any],
    events: Iterable[Any],
    attempt: int = 1,
) -> Receipt:
    """One-call form over an already collected event list (tests, batch re-audits)."""
    audit = ForwardAudit(thread_id=thread_id, turn=turn, session_mode=session_mode, attempt=attempt)
    audit.decided(decided_mode)
    audit.persisted(before=persisted_before, after=persisted_after)
    audit.sent(**{"message": None, "user_id": None, "history": None, **context})
    for event in events:
        audit.observe(event)
    audit.finish()
    return audit.receipt()
