"""Client of an agent behind the LangGraph Server API (`langgraph dev`, LangGraph Platform,
self-hosted), through `langgraph-sdk`: the second protocol of the hand-off seam.

Same surface as `ExternalAgentClient` (`stream`, `pending`, `aclose`), same localised errors:
- one LangGraph thread per Relais thread, kept in the chat database (`agent_threads`, owner
  checked: a thread written for another user is refused);
- a run streamed with `messages-tuple` + `updates`, mapped onto `relais.events`: AI tokens and
  whole AI messages (deduplicated by id; the person's echo and tool results dropped), tool
  calls (once per call id), the interrupt (last), `error` events; the server sends no `done`,
  one is generated when the stream ends;
- while a prompt is pending, the next reply is a resume, never new input (new input would drop
  the prompt): `command={"resume": {interrupt_id: value}}`, `multitask_strategy="reject"`. A
  HITL approval is resumed with the middleware's decisions (`relais.approvals`); a reply that
  cannot be read as decisions is explained and the prompt shown again, nothing is sent. A 409,
  or a click on a prompt that is no longer the pending one, is the "already answered" note;
- the pending prompt after a reload or a restart: `threads.get_state(...)["interrupts"]`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import APIStatusError

from assistant.agent_errors import (
    AgentFailure,
    AgentPending,
    MalformedPayload,
    TurnProgress,
    agent_error,
    classify_failure,
    status_code_key,
)
from assistant.agent_payloads import APPROVAL_KIND, interrupt_from
from assistant.agent_threads import AgentThreads, ThreadOwnedByAnother
from assistant.i18n import normalise_language
from assistant.settings import AssistantSettings, assistant_settings
from relais.approvals import ReplyError, approval_request, decisions_for
from relais.events import (
    AgentEvent,
    DoneEvent,
    ErrorEvent,
    InterruptEvent,
    TextChunk,
    ToolCallEvent,
)

logger = logging.getLogger(__name__)

_THREAD_IDS = uuid.UUID("8a3e9a52-4c1e-4d7b-9b52-1f0e6c2d7a31")  # namespace of LangGraph thread ids


def interrupt_event(raw: dict[str, Any], language: str = "en") -> InterruptEvent | None:
    """A LangGraph interrupt (`{"id", "value"}`) as an event, by what its value is."""
    value, interrupt_id = raw.get("value"), raw.get("id")
    iid = str(interrupt_id) if interrupt_id else None
    actions = approval_request(value)
    if actions is not None:
        prompt = "\n".join(a.description or a.name for a in actions)
        return InterruptEvent(prompt=prompt, kind=APPROVAL_KIND, payload=dict(value), interrupt_id=iid)
    if isinstance(value, str):
        return InterruptEvent(prompt=value, kind="text", payload={}, interrupt_id=iid)
    if isinstance(value, dict):
        try:
            event = interrupt_from(value)  # Relais's shape {prompt, choices, kind}
            return InterruptEvent(event.prompt, event.choices, event.kind, event.payload, iid or event.interrupt_id)
        except MalformedPayload:
            pass
    if value is None:
        return None
    shown = json.dumps(value, ensure_ascii=False, indent=2, default=str)
    return InterruptEvent(prompt=shown, kind="json", payload={"value": value}, interrupt_id=iid)


def resume_value(reply: str, pending: InterruptEvent, language: str) -> Any:
    """What a reply means to the pending interrupt: decisions for an approval, else the text."""
    actions = approval_request(pending.payload) if pending.kind == APPROVAL_KIND else None
    if actions is None:
        return reply
    return decisions_for(reply, actions, language)


def _message_ids(state: dict[str, Any]) -> set[str]:
    values = state.get("values")
    messages = values.get("messages") if isinstance(values, dict) else None
    return {str(m["id"]) for m in messages or [] if isinstance(m, dict) and m.get("id")}


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content
                       if not isinstance(b, dict) or b.get("type", "text") == "text")
    return ""


def _label(call: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={v}" for k, v in (call.get("args") or {}).items())
    return f"{call.get('name')}({args})"


class _Mapper:
    """One run's stream parts → events; text deduplicated by message id, tool calls by call id."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.streamed: set[str] = set()  # ids of AI messages whose text was shown
        self.known: set[str] = set()  # ids of messages the thread held before this run
        self.calls: set[str] = set()
        self.interrupt: InterruptEvent | None = None
        self.error: str | None = None

    def on_part(self, event: str, data: Any) -> list[AgentEvent]:
        if event == "messages" and isinstance(data, list) and data:
            return self._message(data[0], chunk=True)
        if event == "updates" and isinstance(data, dict):
            return self._update(data)
        if event == "error":
            self.error = json.dumps(data, default=str)[:300]
        return []

    def _message(self, message: Any, *, chunk: bool) -> list[AgentEvent]:
        if not isinstance(message, dict):
            return []
        kind, mid = message.get("type"), str(message.get("id") or "")
        if mid and mid in self.known:
            return []
        events: list[AgentEvent] = []
        for call in message.get("tool_calls") or []:
            if kind in ("ai", "AIMessageChunk") and call.get("name") and call.get("id") not in self.calls:
                self.calls.add(str(call.get("id")))
                events.append(ToolCallEvent(_label(call), name=str(call["name"])))
        text = _text_of(message.get("content"))
        if kind == "AIMessageChunk" and text or kind == "ai" and text and mid not in self.streamed:
            self.streamed.add(mid)
            events.append(TextChunk(text))
        return events  # "human" (the person's echo on resume) and "tool" results are not shown

    def _update(self, data: dict[str, Any]) -> list[AgentEvent]:
        events: list[AgentEvent] = []
        for node, update in data.items():
            if node == "__interrupt__" and isinstance(update, list) and update:
                self.interrupt = interrupt_event(update[-1], self.language) or self.interrupt
            elif isinstance(update, dict):
                for message in update.get("messages") or []:
                    if isinstance(message, dict) and message.get("type") == "ai":
                        events.extend(self._message(message, chunk=False))
        return events


class LangGraphAgentClient:
    """The hand-off to one assistant (graph) of a LangGraph server."""

    def __init__(self, settings: AssistantSettings | None = None, *, transport: httpx.AsyncBaseTransport | None = None,
                 threads: AgentThreads | None = None) -> None:
        self.settings = settings or assistant_settings()
        self.base_url = self.settings.external_agent_url.rstrip("/")
        self.assistant = self.settings.external_agent_assistant
        self.display_url = str(httpx.URL(self.base_url).copy_with(userinfo=b"")) if "://" in self.base_url else self.base_url
        connect = self.settings.external_agent_connect_timeout_s
        self.timeout = httpx.Timeout(connect=connect, read=self.settings.external_agent_read_timeout_s,
                                     write=connect, pool=connect)
        self._headers: dict[str, str] = {"User-Agent": "relais-chatbot"}
        token = self.settings.kit.external_agent_token
        if token is not None:
            self._headers["Authorization"] = f"Bearer {token.get_secret_value()}"
        api_key = self.settings.external_agent_api_key
        if api_key is not None:
            self._headers["x-api-key"] = api_key.get_secret_value()
        self._secrets = [s.get_secret_value() for s in (token, api_key) if s is not None]
        self._transport = transport
        self._client: LangGraphClient | None = None
        self._loop: Any = None
        self.threads = threads or AgentThreads(self.settings.kit.chainlit_db_url)

    def _sdk(self) -> LangGraphClient:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            http = httpx.AsyncClient(
                base_url=self.base_url, timeout=self.timeout, headers=self._headers,
                transport=self._transport or httpx.AsyncHTTPTransport(retries=2),  # connect errors only
            )
            self._client, self._loop = LangGraphClient(http), loop
        return self._client

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            try:
                await client.http.client.aclose()
            except (RuntimeError, OSError, httpx.HTTPError):
                pass
        await self.threads.aclose()

    # --- threads ---------------------------------------------------------------------------
    async def _thread(self, key: str, user_id: str, *, create: bool) -> str | None:
        """The LangGraph thread of a Relais thread (created on first use), owner checked."""
        thread_id = str(uuid.uuid5(_THREAD_IDS, f"{self.base_url}|{self.assistant}|{key}"))
        try:
            known = await self.threads.get(key, user_id)
        except ThreadOwnedByAnother:
            raise AgentFailure("unauthorized", f"thread {key} belongs to another user") from None
        if known is not None:
            return known
        if not create:
            return None
        await self._sdk().threads.create(thread_id=thread_id, if_exists="do_nothing",
                                         metadata={"relais_thread": key, "graph_id": self.assistant})
        try:
            return await self.threads.claim(key, user_id, thread_id, self.assistant)
        except ThreadOwnedByAnother:
            raise AgentFailure("unauthorized", f"thread {key} belongs to another user") from None

    async def _pending_of(self, lg_thread: str, language: str, state: dict[str, Any] | None = None
                          ) -> InterruptEvent | None:
        state = state if state is not None else await self._sdk().threads.get_state(lg_thread)
        for raw in reversed(state.get("interrupts") or []):
            event = interrupt_event(raw, language)
            if event is not None:
                return event
        return None

    async def pending(self, thread_id: str, user_id: str) -> AgentPending:
        """The prompt the thread waits on, from the server's state (never raises)."""
        try:
            lg_thread = await self._thread(thread_id, user_id, create=False)
            if lg_thread is None:
                return AgentPending(True, None)
            return AgentPending(True, await self._pending_of(lg_thread, "en"))
        except Exception as exc:  # noqa: BLE001 - unknown is a valid answer here
            logger.warning("LangGraph agent %s: pending prompt unknown (%s)", self.display_url, type(exc).__name__)
            return AgentPending(False)

    # --- the turn ----------------------------------------------------------------------------
    async def stream(
        self,
        question: str,
        user_id: str,
        conversation_history: list[dict[str, str]] | None,
        thread_id: str | None = None,
        language: str = "en",
        interrupt_id: str | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """One turn: new input, or the resume of the pending prompt. Never raises."""
        lang = normalise_language(language)
        progress = TurnProgress()
        mapper = _Mapper(lang)
        try:
            lg_thread = await self._thread(thread_id or user_id, user_id, create=True)
            assert lg_thread is not None
            state = await self._sdk().threads.get_state(lg_thread)
            pending = await self._pending_of(lg_thread, lang, state)
            mapper.known = _message_ids(state)  # shown in earlier turns: never again (updates repeat them)
            if interrupt_id is not None and (pending is None or pending.interrupt_id != interrupt_id):
                raise AgentFailure("conflict", f"interrupt {interrupt_id} is no longer pending")
            if pending is not None:
                try:
                    value = resume_value(question, pending, lang)
                except ReplyError as exc:  # explained, nothing sent; the same prompt again
                    yield ErrorEvent(str(exc), code="invalid_reply")
                    yield pending
                    yield DoneEvent()
                    return
                kwargs: dict[str, Any] = {"command": {"resume": {pending.interrupt_id: value}}}
            else:
                kwargs = {"input": {"messages": [{"role": "user", "content": question}]}}  # the server keeps the thread
            parts = self._sdk().runs.stream(
                lg_thread, self.assistant, stream_mode=["messages-tuple", "updates"],
                multitask_strategy="reject", **kwargs,
            )
            async for part in parts:
                for event in mapper.on_part(part.event, part.data):
                    progress.events += 1
                    yield event
            if mapper.error is not None:
                raise AgentFailure("failed", f"agent error event: {mapper.error}")
            if mapper.interrupt is not None:
                yield mapper.interrupt
            yield DoneEvent()
        except AgentFailure as failure:
            yield self._error(failure.code, lang, failure.cause, **failure.params)
        except APIStatusError as exc:
            yield self._error(status_code_key(exc.status_code), lang, f"HTTP {exc.status_code}: {exc}",
                              status=exc.status_code)
        except Exception as exc:  # noqa: BLE001 - the contract: never raise into the UI
            code = classify_failure(exc, progress)
            yield self._error(code, lang, f"{type(exc).__name__}: {exc}", exc_info=code == "unexpected")

    def _error(self, code: str, lang: str, cause: str, *, exc_info: bool = False, **params: object) -> ErrorEvent:
        return agent_error(code, lang, cause, agent=self.display_url, secrets=self._secrets, exc_info=exc_info,
                           **params)


__all__ = ["LangGraphAgentClient", "interrupt_event", "resume_value"]
