"""The hand-off seam: which client talks to the external agent, and the seed's string surface.

`EXTERNAL_AGENT_PROTOCOL` picks the client (`relais`: `assistant.relais_client`, the seed's
`POST /assistant` + SSE; `langgraph`: `assistant.langgraph_agent`, the LangGraph Server API); both
have `stream`, `pending` and `aclose` and fail with the same localised errors
(`assistant.agent_errors`). Inside Relais a turn is a stream of typed `relais.events`; the seed's
string markers exist only at this boundary (`forward_to_external_agent`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from typing import Any, Protocol

from assistant.agent_errors import AgentPending
from assistant.langgraph_agent import LangGraphAgentClient
from assistant.relais_client import ExternalAgentClient, default_retry_policy
from assistant.settings import AssistantSettings, assistant_settings
from relais.events import AgentEvent, ErrorEvent, InterruptEvent, TextChunk, ToolCallEvent

STEP_PREFIX = "__STEP__:tool:"
INTERRUPT_PREFIX = "__INTERRUPT__:"


class AgentClient(Protocol):
    """What the orchestrator and the chat need from the hand-off's client, either protocol."""

    settings: AssistantSettings

    def stream(self, question: str, user_id: str, conversation_history: Sequence[dict[str, str]] | None,
               thread_id: str | None = None, language: str = "en", interrupt_id: str | None = None,
               ) -> AsyncIterator[AgentEvent]:
        """One turn's events, ending with `DoneEvent` or one localised `ErrorEvent`; never raises."""
        ...

    async def pending(self, thread_id: str, user_id: str) -> AgentPending:
        """The prompt the agent's thread waits on (never raises)."""
        ...

    async def aclose(self) -> None:
        ...


_shared: AgentClient | None = None


def make_client(settings: AssistantSettings) -> AgentClient:
    """The client of the configured protocol (`EXTERNAL_AGENT_PROTOCOL`)."""
    if settings.external_agent_protocol == "langgraph":
        return LangGraphAgentClient(settings)
    return ExternalAgentClient(settings)


def get_client() -> AgentClient:
    """The process-wide client, rebuilt only if the settings object changed."""
    global _shared
    settings = assistant_settings()
    if _shared is None or _shared.settings is not settings:
        _shared = make_client(settings)
    return _shared


async def aclose_client() -> None:
    """Close the process-wide client (app shutdown, tests)."""
    global _shared
    client, _shared = _shared, None
    if client is not None:
        await client.aclose()


def event_to_marker(event: AgentEvent) -> str | None:
    """The seed's string encoding of an event; None for `DoneEvent` (the generator just ends)."""
    if isinstance(event, TextChunk):
        return event.text
    if isinstance(event, ToolCallEvent):
        return STEP_PREFIX + event.message
    if isinstance(event, InterruptEvent):
        return INTERRUPT_PREFIX + json.dumps(
            {
                "prompt": event.prompt,
                "choices": event.choices,
                "kind": event.kind,
                "payload": event.payload,
                "interrupt_id": event.interrupt_id,
            },
            ensure_ascii=False,
        )
    if isinstance(event, ErrorEvent):
        return event.message
    return None


def marker_to_event(text: str) -> TextChunk | ToolCallEvent | InterruptEvent:
    """Inverse of `event_to_marker` for UIs that receive strings (errors read back as text)."""
    if text.startswith(STEP_PREFIX):
        return ToolCallEvent(text[len(STEP_PREFIX) :])
    if text.startswith(INTERRUPT_PREFIX):
        try:
            data = json.loads(text[len(INTERRUPT_PREFIX) :])
            return InterruptEvent(
                prompt=str(data["prompt"]),
                choices=[str(c) for c in data.get("choices") or []],
                kind=str(data.get("kind") or "constraints"),
                payload=dict(data.get("payload") or {}),
                interrupt_id=data.get("interrupt_id") or None,
            )
        except (ValueError, KeyError, TypeError, AttributeError):
            return TextChunk(text)
    return TextChunk(text)


async def forward_to_external_agent(
    question: str,
    user_id: str = "chainlit_user",
    conversation_history: list[dict[str, str]] | None = None,
    thread_id: str | None = None,
    language: str = "en",
    *,
    interrupt_id: str | None = None,
    client: AgentClient | None = None,
    as_events: bool = False,
) -> AsyncGenerator[Any, None]:
    """The seed's forward step, the one the orchestrator's ALTER path calls. Never raises.

    By default the seed's string surface: text chunks, `__STEP__:tool:{message}`,
    `__INTERRUPT__:{json}`, and errors as their localised text. With `as_events=True` the typed
    events themselves (`relais.events`, `DoneEvent` included), which is what the orchestrator
    relays: error codes and interrupt ids survive. `client` defaults to the process-wide one.
    """
    events = (client or get_client()).stream(
        question, user_id, conversation_history, thread_id, language, interrupt_id=interrupt_id
    )
    async with aclosing(events) as stream:
        async for event in stream:
            if as_events:
                yield event
                continue
            marker = event_to_marker(event)
            if marker is not None:
                yield marker


__all__ = ["INTERRUPT_PREFIX", "STEP_PREFIX", "AgentClient", "AgentPending", "ExternalAgentClient",
           "aclose_client", "default_retry_policy", "event_to_marker", "forward_to_external_agent", "get_client",
           "make_client", "marker_to_event"]
