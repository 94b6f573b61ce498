"""Client of the external agent: `POST {EXTERNAL_AGENT_URL}/assistant`, read SSE (or JSON), yield events.

Wire protocol (the seed's, plus `interrupt`, `error` and an optional `thread_id`):

- request body `{"message", "user_id", "conversation_history", "thread_id"?, "interrupt_id"?}`, bearer
  token if set (`interrupt_id`: the prompt a button click answers; 409 when it is no longer pending);
- SSE events `message` (`{"content": ..., "folded"?: {"title": ...}}` or plain text; `folded` marks a
  whole section to show collapsed under its title), `tool_call` (`{"message": ...}`),
  `interrupt` (`{"prompt", "choices"?, "kind"?, "interrupt_id"?, ...}`), `error`, `done`;
- or a plain JSON reply `{"response": "...", "interrupt"?: {...}}` for agents that do not stream;
- optional: `GET {EXTERNAL_AGENT_URL}/threads/{thread_id}/pending?user_id=...` → `{"pending": {...} |
  null}`, the prompt a thread waits on, asked when a thread is shown again (404: not implemented).

Inside Relais the turn is a stream of typed `relais.events` (`ExternalAgentClient.stream`); the seed's
string markers exist only at the boundary (`forward_to_external_agent`). Every failure becomes one
localised `ErrorEvent` that is safe to show; the technical cause goes to the log, never to the user.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Mapping,
)
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import Any

import httpx
import orjson
from httpx_sse import EventSource, ServerSentEvent

from assistant.i18n import normalise_language, translate
from relais import tracing
from relais.approvals import approval_request
from relais.events import (
    AgentEvent,
    DoneEvent,
    ErrorEvent,
    InterruptEvent,
    TextChunk,
    ToolCallEvent,
)
from relais.retry import RetryPolicy
from relais.settings import Settings, get_settings

logger = logging.getLogger(__name__)

STEP_PREFIX = "__STEP__:tool:"
INTERRUPT_PREFIX = "__INTERRUPT__:"
DEFAULT_MAX_EVENT_BYTES = 1_000_000
ACCEPT = "text/event-stream, application/json"
# A network read may deliver part of the next event before the current one is parsed; the
# streaming guard allows that much on top of the cap, the exact per-event check follows.
_READ_SLACK_BYTES = 64 * 1024
_LOG_SNIPPET_BYTES = 512
_DRAIN_TIMEOUT_S = 0.5


def default_retry_policy() -> RetryPolicy:
    """Connect errors only, two retries, short backoff: a refused connection never ran anything."""
    return RetryPolicy(
        max_attempts=3,
        multiplier=0.2,
        wait_min=0.1,
        wait_max=1.0,
        retry_on=lambda exc: isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)),
    )


class _Failure(Exception):
    """A failure we recognised; `code` picks the user message (`agent.<code>` in i18n)."""

    def __init__(self, code: str, cause: str, **params: object) -> None:
        super().__init__(cause)
        self.code = code
        self.cause = cause
        self.params = params


class _Malformed(ValueError):
    """One SSE event whose data we cannot interpret; the event is dropped, the stream goes on."""


@dataclass(frozen=True)
class AgentPending:
    """What the agent says a thread waits on: `supported` is False when it cannot tell (no such
    endpoint, or it failed), `event` is None when nothing is pending."""

    supported: bool
    event: InterruptEvent | None = None


@dataclass
class _Progress:
    """What has happened so far in a turn, to tell 'no answer' from 'answer cut short'."""

    events: int = 0


class _CappedStream(httpx.AsyncByteStream):
    """A body stream aborted once too many bytes arrive without a complete event.

    httpx-sse buffers an event until its blank line; without this guard a hostile or broken agent
    could make us buffer without bound. It wraps the response's raw stream in place, so the bytes
    go through httpx's decoding once, not twice (a second `httpx.Response` around the decoded
    bytes cost ~1-2 % of relay throughput: sse-starlette sends one network chunk per event).
    """

    def __init__(self, source: AsyncIterable[bytes], limit: int,
                 close: Callable[[], Awaitable[None]] | None = None) -> None:
        self._source = source
        self._limit = limit
        self._close = close
        self.pending = 0  # bytes since the last complete event; the reader resets it

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._source:
            self.pending += len(chunk)
            if self.pending > self._limit:
                raise _Failure("too_large", f"over {self._limit} bytes without a complete event")
            yield chunk

    async def aclose(self) -> None:
        if self._close is not None:
            await self._close()

    @classmethod
    def install(cls, response: httpx.Response, limit: int) -> tuple[httpx.Response, _CappedStream]:
        """The response to read events from, with the cap in its byte path.

        Identity bodies are capped in place on the raw stream. A compressed body is capped after
        decoding (a small gzip body can inflate a thousandfold), through a wrapper response.
        """
        encoding = response.headers.get("content-encoding", "").strip().lower()
        if encoding in ("", "identity"):
            raw = response.stream
            assert isinstance(raw, httpx.AsyncByteStream)
            capped = cls(raw, limit, raw.aclose)
            response.stream = capped
            return response, capped
        capped = cls(response.aiter_bytes(), limit, response.aclose)
        headers = [(k, v) for k, v in response.headers.multi_items()
                   if k.lower() not in ("content-encoding", "content-length")]  # already decoded
        return httpx.Response(response.status_code, headers=headers, stream=capped,
                              request=response.request), capped


class ExternalAgentClient:
    """One pooled `httpx.AsyncClient` talking to the configured external agent.

    Build it once per process (`get_client()`); the underlying httpx client is created lazily in
    the running event loop (an httpx pool cannot be shared across loops) and reused by every turn.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        retry: RetryPolicy | None = None,
        max_event_bytes: int | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings or get_settings()
        self.base_url = self.settings.external_agent_url.rstrip("/")
        self.endpoint = self.base_url + "/assistant"
        self.retry = retry or default_retry_policy()
        self.max_event_bytes = max_event_bytes or int(
            getattr(self.settings, "external_agent_max_event_bytes", DEFAULT_MAX_EVENT_BYTES)
        )
        connect = self.settings.external_agent_connect_timeout_s
        self.timeout = httpx.Timeout(
            connect=connect,
            read=self.settings.external_agent_read_timeout_s,  # idle time between bytes
            write=connect,
            pool=connect,
        )
        self._transport = transport
        self._token = (
            self.settings.external_agent_token.get_secret_value()
            if self.settings.external_agent_token is not None
            else None
        )
        self._headers = {"Accept": ACCEPT, "Cache-Control": "no-store"}
        if self._token:
            self._headers["Authorization"] = f"Bearer {self._token}"
        url = httpx.URL(self.endpoint) if "://" in self.endpoint else None
        self.display_url = str(url.copy_with(userinfo=b"")) if url else self.endpoint
        self._secrets = [s for s in (self._token, url.password if url else None) if s]
        self._http: httpx.AsyncClient | None = None
        self._http_loop: asyncio.AbstractEventLoop | None = None

    # --- lifecycle ------------------------------------------------------------------------
    def _client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._http is None or self._http.is_closed or self._http_loop is not loop:
            self._http = httpx.AsyncClient(
                timeout=self.timeout,
                limits=httpx.Limits(max_connections=100, max_keepalive_connections=20),
                transport=self._transport,
                headers={"User-Agent": "relais-chatbot"},
            )
            self._http_loop = loop
        return self._http

    async def aclose(self) -> None:
        """Close the pooled connections (app shutdown, end of a test)."""
        http, self._http, self._http_loop = self._http, None, None
        if http is not None and not http.is_closed:
            try:
                await http.aclose()
            except (RuntimeError, OSError, httpx.HTTPError) as exc:  # pool of a finished loop
                logger.debug("closing the external agent client failed: %s", type(exc).__name__)

    # --- the turn -------------------------------------------------------------------------
    async def stream(
        self,
        question: str,
        user_id: str,
        conversation_history: list[dict[str, str]] | None,
        thread_id: str | None = None,
        language: str = "en",
        interrupt_id: str | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """Relay one question; yields events, ending with `DoneEvent` on success.

        `interrupt_id` says which prompt a button click answers (409 → `conflict` when it was
        already answered).

        Never raises (except cancellation): any failure is yielded as one localised
        `ErrorEvent`, after whatever text already arrived.
        """
        lang = normalise_language(language)
        body: dict[str, Any] = {
            "message": question,
            "user_id": user_id,
            "conversation_history": list(conversation_history or []),
        }
        if thread_id:
            body["thread_id"] = thread_id
        if interrupt_id:
            body["interrupt_id"] = interrupt_id
        progress = _Progress()
        response: httpx.Response | None = None
        try:
            response = await self._open(body)
            # the reader's events go straight to the caller (no intermediate generator)
            async with aclosing(self._reader(response, lang)) as events:
                async for event in events:
                    progress.events += 1
                    yield event
        except _Failure as failure:
            yield self._error(failure.code, lang, failure.cause, **failure.params)
        except Exception as exc:  # noqa: BLE001 - the contract: never raise into the UI
            code = _classify(exc, progress)
            cause = f"{type(exc).__name__}: {exc}"
            yield self._error(code, lang, cause, exc_info=code == "unexpected")
        finally:
            if response is not None:
                await response.aclose()

    async def pending(self, thread_id: str, user_id: str) -> AgentPending:
        """The prompt the agent's thread waits on (optional endpoint; never raises)."""
        from urllib.parse import quote

        url = f"{self.base_url}/threads/{quote(thread_id, safe='')}/pending"
        headers = {k: v for k, v in self._headers.items() if k != "Accept"} | {"Accept": "application/json"}
        try:
            response = await self._client().get(url, params={"user_id": user_id}, headers=headers)
        except httpx.HTTPError as exc:
            logger.warning("external agent %s: pending prompt unknown (%s)", self.display_url, type(exc).__name__)
            return AgentPending(False)
        if response.status_code in (404, 405, 501):
            return AgentPending(False)  # an agent without the endpoint: the user types the reply
        if response.status_code >= 400:
            logger.warning("external agent %s: pending prompt refused (HTTP %d)", self.display_url, response.status_code)
            return AgentPending(False)
        try:
            data = response.json()
            raw = data["pending"] if isinstance(data, dict) else None
            return AgentPending(True, None if raw is None else _interrupt_from(raw))
        except (ValueError, KeyError, _Malformed) as exc:
            logger.warning("external agent %s: unreadable pending prompt: %s", self.display_url, exc)
            return AgentPending(False)

    async def _open(self, body: dict[str, Any]) -> httpx.Response:
        """Send the turn; the streamed response once its status says it carries an answer."""
        http = self._client()
        # W3C traceparent of the `forward` span: the agent continues the same trace
        request = http.build_request("POST", self.endpoint, json=body, headers=tracing.outgoing_headers(self._headers))
        response = await self._send(http, request)
        if response.status_code >= 400:
            try:
                snippet = await _read_body(response, _LOG_SNIPPET_BYTES, truncate=True)
            finally:
                await response.aclose()
            raise _Failure(
                _status_code_key(response.status_code),
                f"HTTP {response.status_code}: {snippet.decode('utf-8', 'replace')!r}",
                status=response.status_code,
            )
        return response

    def _reader(self, response: httpx.Response, lang: str) -> AsyncGenerator[AgentEvent, None]:
        """The event reader for the response's media type (SSE or a plain JSON reply)."""
        media = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if media == "text/event-stream":
            return self._read_sse(response, lang)
        if media == "application/json" or media.endswith("+json"):
            return self._read_json(response)
        raise _Failure("bad_response", f"unexpected content type {media or 'none'!r}")

    async def _send(self, http: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
        """Send with retries on connect errors only: once bytes flowed, never resend."""
        async for attempt in self.retry.asynchronous(on_retry=self._log_retry):
            with attempt:
                return await http.send(request, stream=True)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _read_sse(self, response: httpx.Response, lang: str) -> AsyncGenerator[AgentEvent, None]:
        guarded, capped = _CappedStream.install(response, self.max_event_bytes + _READ_SLACK_BYTES)
        dropped = 0
        limit = self.max_event_bytes
        sse_events = EventSource(guarded).aiter_sse()
        async with aclosing(sse_events):
            async for sse in sse_events:
                capped.pending = 0  # an event is complete
                # UTF-8 takes at most 4 bytes a character: encode only events that could be too big
                if len(sse.data) * 4 > limit and len(sse.data.encode("utf-8")) > limit:
                    raise _Failure("too_large", f"{sse.event!r} event over {limit} B")
                if sse.event == "done":
                    if dropped:
                        yield self._error("bad_response", lang, f"{dropped} malformed event(s)")
                    yield DoneEvent()
                    await _drain(sse_events)
                    return
                try:
                    event = _parse_event(sse)
                except _Malformed as exc:
                    dropped += 1
                    logger.warning(
                        "external agent %s: dropped malformed %r event: %s",
                        self.display_url,
                        sse.event,
                        exc,
                    )
                    continue
                if isinstance(event, ErrorEvent):
                    yield self._error("failed", lang, f"agent error event: {event.message[:200]!r}")
                elif event is not None:
                    yield event
        raise _Failure("interrupted", "stream ended without a 'done' event")

    async def _read_json(self, response: httpx.Response) -> AsyncGenerator[AgentEvent, None]:
        raw = await _read_body(response, self.max_event_bytes)
        try:
            data = orjson.loads(raw)
        except ValueError as exc:
            raise _Failure("bad_response", f"invalid JSON body: {exc}") from None
        if not isinstance(data, dict):
            raise _Failure("bad_response", f"JSON body is a {type(data).__name__}, not an object")
        text, interrupt = data.get("response"), data.get("interrupt")
        if text is not None and not isinstance(text, str):
            raise _Failure("bad_response", "'response' is not a string")
        if text is None and interrupt is None:
            if data.get("error") or data.get("detail"):
                raise _Failure(
                    "failed", f"agent error: {str(data.get('error') or data.get('detail'))[:200]!r}"
                )
            raise _Failure("bad_response", "JSON body has neither 'response' nor 'interrupt'")
        if text:
            yield TextChunk(text)
        if interrupt is not None:
            try:
                event = _interrupt_from(interrupt)
            except _Malformed as exc:
                raise _Failure("bad_response", f"malformed interrupt: {exc}") from None
            yield event
        yield DoneEvent()

    # --- errors ---------------------------------------------------------------------------
    def _error(
        self, code: str, lang: str, cause: str, *, exc_info: bool = False, **params: object
    ) -> ErrorEvent:
        """Log the technical cause (redacted), return the user's localised message."""
        logger.warning(
            "external agent %s failed [%s]: %s",
            self.display_url,
            code,
            self._redact(cause),
            exc_info=exc_info,
        )
        return ErrorEvent(translate(f"agent.{code}", lang, **params), code=code)

    def _redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def _log_retry(self, state: Any) -> None:
        exc = state.outcome.exception() if state.outcome else None
        logger.warning(
            "external agent %s: attempt %d failed (%s), retrying",
            self.display_url,
            state.attempt_number,
            type(exc).__name__,
        )


# --- parsing -------------------------------------------------------------------------------
# Event data is decoded with orjson: json.loads was half of the relay's own cost per event
# (0.8 vs 0.13 us for a token event; benchmark 3).
_NOT_JSON = object()


def _loads(data: str, json_marker: str = "{") -> Any:
    """Parsed JSON data; `_NOT_JSON` for plain text; `_Malformed` when it looks like a broken
    JSON object (starts with `json_marker`), since showing that raw would only leak junk."""
    try:
        return orjson.loads(data)
    except ValueError:
        if data.lstrip().startswith(json_marker):
            raise _Malformed(f"invalid JSON data: {data[:80]!r}") from None
        return _NOT_JSON  # plain-text data is allowed


def _text_field(data: str, *keys: str, json_marker: str = "{") -> tuple[str, Any]:
    """The event's text from JSON `keys` (first string found), or the plain-text data itself."""
    parsed = _loads(data, json_marker)
    if isinstance(parsed, dict):
        for key in keys:
            if isinstance(parsed.get(key), str):
                return parsed[key], parsed
        raise _Malformed(f"no string field among {keys}")
    if isinstance(parsed, str):
        return parsed, parsed
    return data, parsed


def _parse_event(sse: ServerSentEvent) -> AgentEvent | None:
    """One SSE event → a typed event; None for empty text and unknown event types."""
    if sse.event == "message":
        data = sse.data
        if data.startswith('{"'):  # the common shape, {"content": "..."}, read in one step
            try:
                parsed = orjson.loads(data)
            except ValueError:
                raise _Malformed(f"invalid JSON data: {data[:80]!r}") from None
            text = parsed.get("content") if isinstance(parsed, dict) else None
            if isinstance(text, str):
                return TextChunk(text, folded=_fold_title(parsed)) if text else None
        # streamed text may itself start with "{" (code); only a broken '{"' object is malformed
        text, parsed = _text_field(data, "content", "text", json_marker='{"')
        return TextChunk(text, folded=_fold_title(parsed)) if text else None
    if sse.event == "tool_call":
        label, parsed = _text_field(sse.data, "message", "name")
        name = parsed.get("name") if isinstance(parsed, dict) else None
        return ToolCallEvent(label, name=name if isinstance(name, str) else None)
    if sse.event == "interrupt":
        parsed = _loads(sse.data)
        return _interrupt_from(sse.data if parsed is _NOT_JSON else parsed)
    if sse.event == "error":
        try:
            detail, _ = _text_field(sse.data, "message", "error", "detail")
        except _Malformed:
            detail = sse.data
        return ErrorEvent(detail, code="agent_error")
    logger.debug("external agent: ignoring unknown event type %r", sse.event)
    return None


def _fold_title(parsed: Any) -> str | None:
    """A `message` event's optional `folded: {"title"}`: show its content collapsed under the title."""
    folded = parsed.get("folded") if isinstance(parsed, dict) else None
    title = folded.get("title") if isinstance(folded, dict) else None
    if not isinstance(title, str):
        return None
    return title.strip()[:200] or None


def _interrupt_from(value: Any) -> InterruptEvent:
    """An interrupt payload (dict, possibly LangGraph's `{"value": {...}}`, or a bare prompt)."""
    if isinstance(value, str) and value.strip():
        return InterruptEvent(prompt=value)
    if not isinstance(value, dict):
        raise _Malformed(f"interrupt payload is a {type(value).__name__}")
    actions = approval_request(value)
    if actions is not None:  # LangChain's HumanInTheLoopMiddleware request: an approval card
        interrupt_id = value.get("interrupt_id")
        return InterruptEvent(
            prompt="\n".join(a.description or a.name for a in actions), kind="approval",
            payload={k: v for k, v in value.items() if k != "interrupt_id"},
            interrupt_id=str(interrupt_id) if isinstance(interrupt_id, (str, int)) and interrupt_id != "" else None,
        )
    if isinstance(value.get("value"), (dict, str)) and not _first_str(value, "prompt", "question"):
        inner = _interrupt_from(value["value"])  # LangGraph's Interrupt shape: {"value", "id"}
        outer_id = value.get("interrupt_id", value.get("id"))
        if inner.interrupt_id is None and isinstance(outer_id, str) and outer_id:
            inner = replace(inner, interrupt_id=outer_id)
        return inner
    prompt = _first_str(value, "prompt", "question", "message")
    if prompt is None:
        raise _Malformed("interrupt without a prompt")
    raw_choices = value.get("choices", value.get("options")) or []
    if not isinstance(raw_choices, list):
        raise _Malformed("interrupt choices are not a list")
    choices = [c for c in (_choice_label(item) for item in raw_choices) if c]
    kind = value.get("kind")
    interrupt_id = value.get("interrupt_id", value.get("id"))
    return InterruptEvent(
        prompt=prompt,
        choices=choices,
        kind=kind if isinstance(kind, str) and kind else "constraints",
        payload={k: v for k, v in value.items() if k != "interrupt_id"},
        interrupt_id=str(interrupt_id) if isinstance(interrupt_id, (str, int)) and interrupt_id != "" else None,
    )


def _first_str(data: Mapping[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _choice_label(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        return _first_str(item, "label", "value", "text")
    return None


async def _drain(events: AsyncIterator[ServerSentEvent]) -> None:
    """Read what follows `done` (normally just the end of the body) so the pooled connection can
    be reused; an agent that keeps talking only costs us that connection."""
    ignored = 0
    try:
        async with asyncio.timeout(_DRAIN_TIMEOUT_S):
            async for _ in events:
                ignored += 1
    except (httpx.HTTPError, _Failure, TimeoutError):
        return
    if ignored:
        logger.debug("external agent: ignored %d event(s) after 'done'", ignored)


async def _read_body(response: httpx.Response, limit: int, *, truncate: bool = False) -> bytes:
    """At most `limit` body bytes; beyond it either stop (`truncate`) or fail as too large."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            if truncate:
                chunks.append(chunk[: max(0, limit - (size - len(chunk)))])
                break
            raise _Failure("too_large", f"body over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _status_code_key(status: int) -> str:
    return {
        401: "unauthorized",
        403: "unauthorized",
        404: "not_found",
        405: "not_found",
        409: "conflict",
        413: "too_long",
        429: "busy",
    }.get(status, "http_error")


def _classify(exc: BaseException, progress: _Progress) -> str:
    """The user-message code for a transport or protocol exception."""
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
        return "unreachable"
    if isinstance(exc, httpx.PoolTimeout):
        return "busy"
    if isinstance(exc, httpx.TimeoutException):
        return "idle_timeout" if progress.events else "timeout"
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return "interrupted"
    if isinstance(exc, (httpx.DecodingError, UnicodeDecodeError)):
        return "bad_response"
    if isinstance(exc, (httpx.InvalidURL, httpx.UnsupportedProtocol)):
        return "not_found"
    return "unexpected"


# --- process-wide client and the seed's string surface ------------------------------------
_shared: Any = None


def make_client(settings: Settings) -> Any:
    """The client of the configured protocol (`EXTERNAL_AGENT_PROTOCOL`): both have `stream`,
    `pending` and `aclose`, and fail with the same localised errors."""
    if settings.external_agent_protocol == "langgraph":
        from assistant.langgraph_agent import LangGraphAgentClient  # it builds on this module

        return LangGraphAgentClient(settings)
    return ExternalAgentClient(settings)


def get_client() -> Any:
    """The process-wide client, rebuilt only if the settings object changed."""
    global _shared
    settings = get_settings()
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
    client: ExternalAgentClient | None = None,
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
