"""The one adapter between the coach graph and its callers (the HTTP service, the Chainlit
"Coach" profile, the CLI): a turn in, typed `relais.events` out.

How a turn starts, per thread:
- no checkpoint yet → a fresh run with the message (after an optional seed of earlier history);
- paused at the human node → `Command(resume=message)`: the same run continues, never a new one;
- a checkpoint that is not paused (a previous run failed or was cut mid-stream) → the message is
  appended as if the human node had produced it (dangling tool calls closed first), and the run
  continues from the router. The thread always stays usable.

Create one runner per process (it holds the compiled graph and its checkpointer) and reuse it:
`async with CoachRunner.open() as runner:` or `runner = await CoachRunner.create()` … `aclose()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from collections.abc import AsyncIterator, Iterable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from coach.audit import COACH_ROUTER_CONTRACT, HUMAN_CONTRACT_NAME
from coach.checkpoint import open_checkpointer
from coach.folding import FOLD_KEY, fold, fold_rest, summary_end
from coach.graph import HUMAN, build_coach_graph
from coach.human import human_message
from coach.language import detect_language
from coach.settings import coach_settings
from coach.state import AGENTS
from handoff_audit.builders import owner_id
from handoff_audit.langgraph_adapter import GraphTurnAudit
from handoff_audit.recorder import ReceiptStore
from relais import tracing
from relais.events import (
    AgentEvent,
    DoneEvent,
    ErrorEvent,
    InterruptEvent,
    TextChunk,
    ToolCallEvent,
)
from relais.models import chat_model, engine_info
from relais.retry import RetryPolicy
from relais.settings import Settings, get_settings, secret_values
from relais.turns import StaleInterrupt, thread_config, thread_owner

log = logging.getLogger(__name__)

AUTO: Any = object()  # "take the chat model from settings" (None would mean the offline engine)
RECURSION_LIMIT = 40
HISTORY_LIMIT = 20
HISTORY_ITEM_CHARS = 4000

_ERRORS = {
    "en": "Sorry — the coach hit a problem and could not finish this answer. Your conversation is saved: "
    "send your message again.",
    "fr": "Désolé — le coach a rencontré un problème et n'a pas pu terminer cette réponse. Votre conversation "
    "est enregistrée : renvoyez votre message.",
}


def format_tool_call(name: str, args: dict[str, Any]) -> str:
    """`workout_plan(goal=mixed, injuries=[knee])` — the label shown as a UI step."""

    def fmt(value: Any) -> str:
        if isinstance(value, (list, tuple)):
            return "[" + ", ".join(fmt(v) for v in value) + "]"
        if isinstance(value, str):
            return value
        return json.dumps(value, ensure_ascii=False)

    parts = [f"{k}={fmt(v)}" for k, v in (args or {}).items() if v not in (None, [], "", {})]
    return f"{name}({', '.join(parts)})"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            b.get("text", "")
            if isinstance(b, dict) and b.get("type", "text") == "text"
            else (b if isinstance(b, str) else "")
            for b in content
        )
    return ""


def _pieces(text: str) -> list[str]:
    """Split a whole offline reply into line-sized chunks (joined back, they are the text)."""
    return text.splitlines(keepends=True) or [text]


def history_messages(history: Iterable[Any] | None, current: str) -> list[BaseMessage]:
    """The caller's earlier turns (`{"role", "content"}` items) as messages, for a new thread only."""
    out: list[BaseMessage] = []
    for item in list(history or [])[-HISTORY_LIMIT:]:
        if not isinstance(item, dict):
            continue
        role, content = str(item.get("role", "")).lower(), item.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        content = content[:HISTORY_ITEM_CHARS]
        if role in ("user", "human"):
            out.append(HumanMessage(content=content))
        elif role in ("assistant", "ai"):
            out.append(AIMessage(content=content))
    if out and out[-1].type == "human" and str(out[-1].content).strip() == current.strip():
        out.pop()  # the caller included the current message in its history
    return out


def _close_dangling_tool_calls(messages: list[BaseMessage]) -> list[ToolMessage]:
    """Tool results for calls left unanswered by a failed run (chat APIs reject dangling calls)."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    out = []
    for m in messages:
        if isinstance(m, AIMessage):
            for call in m.tool_calls:
                if call.get("id") and call["id"] not in answered:
                    out.append(
                        ToolMessage(
                            content="The tool did not run (the previous turn failed).",
                            tool_call_id=call["id"],
                            name=call.get("name"),
                            status="error",
                        )
                    )
    return out


def interrupt_event(interrupt: Any) -> InterruptEvent | None:
    """LangGraph's `Interrupt` (payload dict from the human node) as an event with its id."""
    value = getattr(interrupt, "value", None)
    if not isinstance(value, dict):
        return None
    return InterruptEvent(
        prompt=str(value.get("prompt", "")),
        choices=[str(c) for c in value.get("choices", [])],
        kind=str(value.get("kind", "constraints")),
        payload=dict(value),
        interrupt_id=getattr(interrupt, "id", None),
    )


def _folded(text: str, title: str) -> list[AgentEvent]:
    """A whole reply: its summary in line-sized chunks, then a long plan as one folded section."""
    shown, section = fold(text)
    return [TextChunk(piece) for piece in _pieces(shown)] + ([TextChunk(section, folded=title)] if section else [])


class _Turn:
    """Turns one run's stream parts into events (advisor text, tool calls, the final interrupt).

    A reply marked with a fold title (`coach.folding`) streams its first paragraph; the rest is
    held until the reply ends, then sent as one folded section if long, as plain text if not."""

    def __init__(self) -> None:
        self.last_text_id: str | None = None
        self.interrupt: InterruptEvent | None = None
        self._fold_title: str | None = None  # the streamed reply being split, if any
        self._text = ""  # that reply's text so far
        self._held: str | None = None  # its text after the first paragraph (None: not reached)

    def on_message(self, chunk: Any, meta: dict[str, Any]) -> list[AgentEvent]:
        """`messages` mode: model tokens (a chunk each) or a whole offline reply (cut in lines)."""
        if meta.get("langgraph_node") not in AGENTS or not isinstance(chunk, AIMessage):
            return []
        text = _text_of(chunk.content)
        if not text:
            return []
        events: list[AgentEvent] = []
        if self.last_text_id is not None and chunk.id != self.last_text_id:
            events.extend(self.flush())
            events.append(TextChunk("\n\n"))  # a second reply in the same turn
        self.last_text_id = chunk.id
        # the section title: on an offline reply, or on the metadata of a model call
        title = (chunk.additional_kwargs or {}).get(FOLD_KEY) or meta.get(FOLD_KEY)
        if not isinstance(chunk, AIMessageChunk):  # a whole reply (offline, or a model not streaming)
            if isinstance(title, str) and title:
                return events + _folded(text, title)
            return events + [TextChunk(piece) for piece in _pieces(text)]
        if not isinstance(title, str) or not title:
            return events + [TextChunk(text)]
        return events + self._split_stream(text, title)

    def _split_stream(self, text: str, title: str) -> list[AgentEvent]:
        self._fold_title = title
        if self._held is not None:
            self._held += text
            return []
        before = len(self._text)
        self._text += text
        end = summary_end(self._text)
        if end is None:
            return [TextChunk(text)]  # still in the first paragraph
        self._held = self._text[end:]
        return [TextChunk(self._text[before:end])] if end > before else []

    def flush(self) -> list[AgentEvent]:
        """The held rest of a split reply: one folded section if long, plain text otherwise."""
        held, title = self._held, self._fold_title
        self._held, self._fold_title, self._text = None, None, ""
        if not held or not title:
            return [TextChunk(held)] if held else []
        shown, section = fold_rest(held)
        events: list[AgentEvent] = [TextChunk(shown)] if shown else []
        return events + ([TextChunk(section, folded=title)] if section else [])

    def on_update(self, data: dict[str, Any] | None) -> list[AgentEvent]:
        """`updates` mode: an advisor's tool calls, and the human node's interrupt payload."""
        events: list[AgentEvent] = []
        for node, update in (data or {}).items():
            if node in AGENTS:
                events.extend(self.flush())  # the advisor's reply is complete
            if node == "__interrupt__" and update and isinstance(update[-1].value, dict):
                self.interrupt = interrupt_event(update[-1])
            elif node in AGENTS and isinstance(update, dict):
                for m in update.get("messages", []):
                    for call in getattr(m, "tool_calls", None) or []:
                        label = format_tool_call(call["name"], call.get("args", {}))
                        events.append(ToolCallEvent(label, name=call["name"]))
        return events


class CoachRunner:
    """Runs coach turns on a compiled graph and turns graph output into `AgentEvent`s."""

    def __init__(
        self, graph: CompiledStateGraph, *, engine: str = "offline", receipts: Any = None
    ) -> None:
        self.graph = graph
        self.engine = engine
        self.receipts = receipts  # a handoff_audit ReceiptStore: every turn leaves receipts
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._stack: contextlib.AsyncExitStack | None = None

    # --- construction -------------------------------------------------------------------------
    @classmethod
    @contextlib.asynccontextmanager
    async def open(
        cls,
        *,
        model: BaseChatModel | None = AUTO,
        checkpoint_target: str | None = None,
        settings: Settings | None = None,
        **graph_kwargs: Any,
    ) -> AsyncIterator[CoachRunner]:
        """A runner on the settings' checkpointer; `model=None` forces the offline engine."""
        settings = settings or get_settings()
        engine = "offline"
        if model is AUTO:
            model = chat_model(settings, temperature=0)
            engine = engine_info(settings).label
        elif model is not None:
            engine = (
                getattr(model, "model_name", None)
                or getattr(model, "model", None)
                or type(model).__name__
            )
        if model is not None:
            graph_kwargs.setdefault(
                "retry", RetryPolicy.for_model_calls(settings)
            )
        receipts = ReceiptStore(settings.receipts_db_url, secrets=secret_values(settings))
        async with open_checkpointer(checkpoint_target, settings) as saver:
            graph = build_coach_graph(model, saver, **graph_kwargs)
            yield cls(graph, engine=str(engine), receipts=receipts)

    @classmethod
    async def create(cls, **kwargs: Any) -> CoachRunner:
        """Like `open`, for hosts without a context (e.g. Chainlit startup); call `aclose()` later."""
        stack = contextlib.AsyncExitStack()
        runner = await stack.enter_async_context(cls.open(**kwargs))
        runner._stack = stack
        return runner

    async def aclose(self) -> None:
        if self._stack is not None:
            stack, self._stack = self._stack, None
            await stack.aclose()

    # --- turns ----------------------------------------------------------------------------------
    def _config(self, thread_id: str, owner: str | None = None) -> dict[str, Any]:
        return thread_config(thread_id, owner, recursion_limit=RECURSION_LIMIT)

    async def pending(self, thread_id: str) -> InterruptEvent | None:
        """The prompt the thread waits on (from its checkpoint), with its interrupt id; None if none."""
        snapshot = await self.graph.aget_state(self._config(thread_id))
        for interrupt in reversed(snapshot.interrupts or ()):
            event = interrupt_event(interrupt)
            if event is not None:
                return event
        return None

    async def owner(self, thread_id: str) -> str | None:
        """The user the thread's latest turns were written for (None: unknown or no thread)."""
        return await thread_owner(self.graph.checkpointer, thread_id)  # type: ignore[arg-type]

    def _lock(self, thread_id: str) -> asyncio.Lock:
        lock = self._locks.get(thread_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[thread_id] = lock
        return lock

    async def _graph_input(
        self, config: dict[str, Any], message: str, history: Iterable[Any] | None
    ) -> Any:
        snapshot = await self.graph.aget_state(config)
        if snapshot.interrupts:
            return Command(resume=message)
        messages = list((snapshot.values or {}).get("messages", []))
        if not messages:
            seed = history_messages(history, message)
            return {"messages": [*seed, human_message(message, seed)]}
        repair = _close_dangling_tool_calls(messages)
        log.info(
            "coach thread not paused (next=%s): continuing with the new message",
            list(snapshot.next),
        )
        await self.graph.aupdate_state(
            config, {"messages": [*repair, human_message(message, messages)]}, as_node=HUMAN
        )
        return None

    async def run_turn(
        self,
        thread_id: str,
        message: str,
        history: Iterable[Any] | None = None,
        user_id: str | None = None,
        interrupt_id: str | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """One user message → text chunks, tool calls, then an interrupt (or an error), then done.

        With `interrupt_id` (a click on a prompt's button) the message answers that prompt only:
        if the thread no longer waits on it, `StaleInterrupt` is raised before any event, inside
        the thread's lock, so two clicks never resume twice. A typed reply (no id) answers
        whatever is pending. Each turn's handoffs leave audit receipts.
        """
        async with self._lock(thread_id):
            if interrupt_id is not None:
                pending = await self.pending(thread_id)
                if pending is None or pending.interrupt_id != interrupt_id:
                    raise StaleInterrupt(interrupt_id, pending)
            config = self._config(thread_id, user_id)
            turn = _Turn()
            before = await self.graph.aget_state(config)
            audit = self._start_audit(before, thread_id, message)
            try:
                graph_input = await self._graph_input(config, message, history)
                # durability="exit": one checkpoint per turn, written when the graph stops (at the
                # human node's interrupt, or on error); a turn is all-or-nothing anyway (see
                # `_roll_back`), and the per-step writes were most of a turn's SQLite cost
                async for mode, data in self.graph.astream(
                    graph_input, tracing.graph_config(config), stream_mode=["messages", "updates", "tasks"],
                    durability="exit",
                ):
                    if audit is not None:
                        audit.observe((mode, data))
                    if mode == "tasks":
                        continue
                    events = turn.on_message(*data) if mode == "messages" else turn.on_update(data)
                    for event in events:
                        yield event
                for event in turn.flush():
                    yield event
            except Exception as exc:  # noqa: BLE001 — a failed node becomes an event; the thread stays usable
                log.warning(
                    "coach turn failed on thread %s: %s: %s", thread_id, type(exc).__name__, exc
                )
                for event in turn.flush():  # what the person was about to read, kept as text
                    yield event
                await self._record_audit(audit, config, user_id or thread_id)
                await self._roll_back(thread_id, config, before)
                yield ErrorEvent(_ERRORS[detect_language(message)], code="graph_error")
                reasked = await self.pending(thread_id)  # the same question, under its new interrupt id
                if reasked is not None:
                    yield reasked
            else:
                await self._record_audit(audit, config, user_id or thread_id)
                if turn.interrupt is not None:
                    yield turn.interrupt
        yield DoneEvent()  # outside the lock: a caller that stops at "done" never keeps the thread locked

    # --- handoff audit ---------------------------------------------------------------------------
    async def _roll_back(self, thread_id: str, config: dict[str, Any], before: Any) -> None:
        """A failed turn leaves no trace: the thread returns to its checkpoint from before the
        turn (a copy of it becomes the latest), paused again at the same question if it was."""
        try:
            if not (before.values or {}).get("messages"):
                await self.graph.checkpointer.adelete_thread(thread_id)  # type: ignore[union-attr]
                return
            await self.graph.aupdate_state(before.config, None, as_node="__copy__")
            if before.interrupts:  # re-ask: the human node is deterministic, its question the same
                async for _ in self.graph.astream(None, config, stream_mode="updates"):
                    pass
        except Exception as exc:  # noqa: BLE001 — the thread stays resumable either way
            log.warning("coach thread %s not rolled back: %s", thread_id, type(exc).__name__)

    def _start_audit(self, before: Any, thread_id: str, message: str) -> Any:
        if self.receipts is None:
            return None
        # the route is judged from the router node's own recorded decision, never re-computed here
        return GraphTurnAudit(
            thread_id=thread_id,
            contract=COACH_ROUTER_CONTRACT,
            state_before=before,
            human_contract=HUMAN_CONTRACT_NAME,
        )

    async def _record_audit(self, audit: Any, config: dict[str, Any], user_id: str) -> None:
        """Store the turn's receipts; auditing never breaks the conversation."""
        if audit is None:
            return
        try:
            after = await self.graph.aget_state(config)
            await asyncio.to_thread(
                audit.record,
                self.receipts,
                after,
                owner=owner_id(user_id),
                ttl_s=coach_settings().coach_interrupt_ttl_s,
            )
        except Exception as exc:  # noqa: BLE001
            log.warning("coach receipts not recorded: %s", type(exc).__name__)

    async def state(self, thread_id: str) -> dict[str, Any]:
        """A thread's summary: message counts, the advisor in charge, and whether it waits for the person."""
        snapshot = await self.graph.aget_state(self._config(thread_id))
        values = snapshot.values or {}
        messages = list(values.get("messages", []))
        pending = [i.value for i in snapshot.interrupts] if snapshot.interrupts else []
        return {
            "thread_id": thread_id,
            "exists": bool(messages),
            "messages": len(messages),
            "human_messages": sum(1 for m in messages if m.type == "human"),
            "ai_messages": sum(1 for m in messages if m.type == "ai"),
            "last_active_agent": values.get("last_active_agent"),
            "paused": bool(pending),
            "interrupt": pending[-1] if pending else None,
            "interrupt_id": snapshot.interrupts[-1].id if snapshot.interrupts else None,
            "next": list(snapshot.next),
        }

    async def history(self, thread_id: str) -> list[dict[str, str]]:
        """The thread's user/assistant messages as `{"role", "content"}` (for UIs rebuilding a view)."""
        snapshot = await self.graph.aget_state(self._config(thread_id))
        out = []
        for m in (snapshot.values or {}).get("messages", []):
            text = _text_of(m.content)
            if m.type == "human":
                out.append({"role": "user", "content": text})
            elif m.type == "ai" and text:
                out.append({"role": "assistant", "content": text})
        return out
