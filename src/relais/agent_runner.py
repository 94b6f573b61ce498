"""Any LangGraph agent with a messages state (e.g. LangChain `create_agent`) as a `TurnRunner`, so
the Relais-protocol service can serve it beside the coach.

A turn per thread (a lock per thread, the graph's own checkpointer):
- nothing pending → the message is new input;
- paused → the message resumes that interrupt, never new input: a `HumanInTheLoopMiddleware`
  request gets the middleware's decisions read from the reply (`relais.approvals`: "yes",
  "reject: too late", "edit: day=tuesday", one part per action separated by ";"); a reply that
  cannot be read is explained and the same card sent again, nothing resumed; any other interrupt
  gets the text itself;
- `interrupt_id` (a click) that is not the pending prompt → `StaleInterrupt`, before any event.
Events: AI text (whole messages or tokens, each message once), one step per tool call, the
interrupt last (an approval card: kind `approval`, the request as payload), `DoneEvent`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections.abc import AsyncIterator, Iterable
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from relais.approvals import APPROVAL_KIND, ReplyError, approval_request, decisions_for
from relais.events import (
    AgentEvent,
    DoneEvent,
    ErrorEvent,
    InterruptEvent,
    TextChunk,
    ToolCallEvent,
)
from relais.language import detect_language
from relais.turns import StaleInterrupt, thread_config, thread_owner

log = logging.getLogger(__name__)

RECURSION_LIMIT = 25
_FAILED = {
    "en": "Sorry — the agent hit a problem and could not finish. Your conversation is saved: try again.",
    "fr": "Désolé — l'agent a rencontré un problème et n'a pas pu terminer. La conversation est enregistrée : "
    "réessayez.",
}


def interrupt_event(interrupt: Any) -> InterruptEvent | None:
    """A LangGraph `Interrupt` as an event, by what its value is (approval, text, Relais's shape)."""
    value, interrupt_id = getattr(interrupt, "value", None), getattr(interrupt, "id", None)
    actions = approval_request(value)
    if actions is not None:
        prompt = "\n".join(a.description or a.name for a in actions)
        return InterruptEvent(prompt, kind=APPROVAL_KIND, payload=dict(value), interrupt_id=interrupt_id)
    if isinstance(value, str):
        return InterruptEvent(value, kind="text", interrupt_id=interrupt_id)
    if isinstance(value, dict) and isinstance(value.get("prompt"), str):
        return InterruptEvent(value["prompt"], [str(c) for c in value.get("choices") or []],
                              str(value.get("kind") or "constraints"), dict(value), interrupt_id)
    if value is None:
        return None
    shown = json.dumps(value, ensure_ascii=False, indent=2, default=str)
    return InterruptEvent(shown, kind="json", payload={"value": value}, interrupt_id=interrupt_id)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type", "text") == "text")
    return ""


def _label(call: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={v}" for k, v in (call.get("args") or {}).items())
    return f"{call.get('name')}({args})"


class _Stream:
    """One run's `messages` + `updates` parts → events; text once per message, steps once per call."""

    def __init__(self, known: set[str]) -> None:
        self.known = known  # ids of messages the thread held before this run: shown then, not again
        self.streamed: set[str] = set()
        self.calls: set[str] = set()
        self.interrupt: InterruptEvent | None = None

    def on_part(self, mode: str, data: Any) -> list[AgentEvent]:
        if mode == "messages":
            message, _meta = data
            return self._text(message) if isinstance(message, AIMessageChunk) else []
        events: list[AgentEvent] = []
        for node, update in (data or {}).items():
            if node == "__interrupt__":
                found = [e for e in (interrupt_event(i) for i in update or ()) if e is not None]
                self.interrupt = found[-1] if found else self.interrupt
                continue
            for message in (update or {}).get("messages", []) if isinstance(update, dict) else []:
                if isinstance(message, AIMessage) and message.id not in self.known:
                    events += self._calls(message) + self._text(message)
        return events

    def _text(self, message: AIMessage) -> list[AgentEvent]:
        text = _text_of(message.content)
        if not text or (not isinstance(message, AIMessageChunk) and message.id in self.streamed):
            return []
        self.streamed.add(str(message.id))
        return [TextChunk(text)]

    def _calls(self, message: AIMessage) -> list[AgentEvent]:
        events: list[AgentEvent] = []
        for call in message.tool_calls:
            if call.get("id") not in self.calls:
                self.calls.add(str(call.get("id")))
                events.append(ToolCallEvent(_label(dict(call)), name=call["name"]))
        return events


class AgentGraphRunner:
    """Runs turns of one compiled graph (compiled with a checkpointer) and yields `relais.events`."""

    def __init__(self, graph: CompiledStateGraph, *, engine: str = "offline") -> None:
        if graph.checkpointer is None:
            raise ValueError("the graph needs a checkpointer: a paused thread must survive between turns")
        self.graph = graph
        self.engine = engine
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def _lock(self, thread_id: str) -> asyncio.Lock:
        lock = self._locks.get(thread_id)
        if lock is None:
            lock = self._locks[thread_id] = asyncio.Lock()
        return lock

    async def pending(self, thread_id: str) -> InterruptEvent | None:
        snapshot = await self.graph.aget_state(thread_config(thread_id))
        for interrupt in reversed(snapshot.interrupts or ()):
            event = interrupt_event(interrupt)
            if event is not None:
                return event
        return None

    async def owner(self, thread_id: str) -> str | None:
        return await thread_owner(self.graph.checkpointer, thread_id)  # type: ignore[arg-type]

    async def run_turn(
        self,
        thread_id: str,
        message: str,
        history: Iterable[Any] | None = None,
        user_id: str | None = None,
        interrupt_id: str | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """One message → events (see the module); `history` is unused: the thread keeps its own."""
        language = detect_language(message, default="en")
        async with self._lock(thread_id):
            pending = await self.pending(thread_id)
            if interrupt_id is not None and (pending is None or pending.interrupt_id != interrupt_id):
                raise StaleInterrupt(interrupt_id, pending)
            try:
                graph_input = self._input(message, pending, language)
            except ReplyError as exc:  # explained, nothing resumed; the same card again
                yield ErrorEvent(str(exc), code="invalid_reply")
                if pending is not None:
                    yield pending
                yield DoneEvent()
                return
            async for event in self._run(thread_id, graph_input, user_id, language):
                yield event
        yield DoneEvent()

    @staticmethod
    def _input(message: str, pending: InterruptEvent | None, language: str) -> Any:
        if pending is None:
            return {"messages": [{"role": "user", "content": message}]}
        actions = approval_request(pending.payload) if pending.kind == APPROVAL_KIND else None
        value = decisions_for(message, actions, language) if actions else message
        return Command(resume={pending.interrupt_id: value} if pending.interrupt_id else value)

    async def _run(self, thread_id: str, graph_input: Any, user_id: str | None, language: str
                   ) -> AsyncIterator[AgentEvent]:
        config = thread_config(thread_id, user_id, recursion_limit=RECURSION_LIMIT)
        before = await self.graph.aget_state(config)
        stream = _Stream({str(m.id) for m in (before.values or {}).get("messages", []) if m.id})
        try:
            async for mode, data in self.graph.astream(graph_input, config, stream_mode=["messages", "updates"]):
                for event in stream.on_part(mode, data):
                    yield event
        except Exception as exc:  # noqa: BLE001 - a failed node becomes an event; the thread stays usable
            log.warning("agent turn failed on thread %s: %s: %s", thread_id, type(exc).__name__, exc)
            yield ErrorEvent(_FAILED["fr" if language == "fr" else "en"], code="graph_error")
            stream.interrupt = await self.pending(thread_id)  # still paused: the same question
        if stream.interrupt is not None:
            yield stream.interrupt


__all__ = ["APPROVAL_KIND", "AgentGraphRunner", "interrupt_event"]
