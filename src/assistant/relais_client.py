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
import logging
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from typing import Any
from urllib.parse import quote

import httpx
import orjson
from httpx_sse import EventSource, ServerSentEvent

from assistant.agent_errors import (
    AgentFailure,
    AgentPending,
    MalformedPayload,
    TurnProgress,
    agent_error,
    classify_failure,
    status_code_key,
)
from assistant.agent_payloads import interrupt_from
from assistant.i18n import normalise_language
from assistant.settings import AssistantSettings, assistant_settings
from relais import tracing
from relais.events import AgentEvent, DoneEvent, ErrorEvent, TextChunk, ToolCallEvent
from relais.retry import RetryPolicy

logger = logging.getLogger(__name__)

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
                raise AgentFailure("too_large", f"over {self._limit} bytes without a complete event")
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
        settings: AssistantSettings | None = None,
        *,
        retry: RetryPolicy | None = None,
        max_event_bytes: int | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings = settings or assistant_settings()
        self.base_url = self.settings.external_agent_url.rstrip("/")
        self.endpoint = self.base_url + "/assistant"
        self.retry = retry or default_retry_policy()
        self.max_event_bytes = max_event_bytes or self.settings.external_agent_max_event_bytes
        connect = self.settings.external_agent_connect_timeout_s
        self.timeout = httpx.Timeout(
            connect=connect,
            read=self.settings.external_agent_read_timeout_s,  # idle time between bytes
            write=connect,
            pool=connect,
        )
        self._transport = transport
        self._token = (
            self.settings.kit.external_agent_token.get_secret_value()
            if self.settings.kit.external_agent_token is not None
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
        progress = TurnProgress()
        response: httpx.Response | None = None
        try:
            response = await self._open(body)
            # the reader's events go straight to the caller (no intermediate generator)
            async with aclosing(self._reader(response, lang)) as events:
                async for event in events:
                    progress.events += 1
                    yield event
        except AgentFailure as failure:
            yield self._error(failure.code, lang, failure.cause, **failure.params)
        except Exception as exc:  # noqa: BLE001 - the contract: never raise into the UI
            code = classify_failure(exc, progress)
            cause = f"{type(exc).__name__}: {exc}"
            yield self._error(code, lang, cause, exc_info=code == "unexpected")
        finally:
            if response is not None:
                await response.aclose()

    async def pending(self, thread_id: str, user_id: str) -> AgentPending:
        """The prompt the agent's thread waits on (optional endpoint; never raises)."""
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
            return AgentPending(True, None if raw is None else interrupt_from(raw))
        except (ValueError, KeyError, MalformedPayload) as exc:
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
            raise AgentFailure(
                status_code_key(response.status_code),
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
        raise AgentFailure("bad_response", f"unexpected content type {media or 'none'!r}")

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
                    raise AgentFailure("too_large", f"{sse.event!r} event over {limit} B")
                if sse.event == "done":
                    if dropped:
                        yield self._error("bad_response", lang, f"{dropped} malformed event(s)")
                    yield DoneEvent()
                    await _drain(sse_events)
                    return
                try:
                    event = parse_event(sse)
                except MalformedPayload as exc:
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
        raise AgentFailure("interrupted", "stream ended without a 'done' event")

    async def _read_json(self, response: httpx.Response) -> AsyncGenerator[AgentEvent, None]:
        raw = await _read_body(response, self.max_event_bytes)
        try:
            data = orjson.loads(raw)
        except ValueError as exc:
            raise AgentFailure("bad_response", f"invalid JSON body: {exc}") from None
        if not isinstance(data, dict):
            raise AgentFailure("bad_response", f"JSON body is a {type(data).__name__}, not an object")
        text, interrupt = data.get("response"), data.get("interrupt")
        if text is not None and not isinstance(text, str):
            raise AgentFailure("bad_response", "'response' is not a string")
        if text is None and interrupt is None:
            if data.get("error") or data.get("detail"):
                raise AgentFailure(
                    "failed", f"agent error: {str(data.get('error') or data.get('detail'))[:200]!r}"
                )
            raise AgentFailure("bad_response", "JSON body has neither 'response' nor 'interrupt'")
        if text:
            yield TextChunk(text)
        if interrupt is not None:
            try:
                event = interrupt_from(interrupt)
            except MalformedPayload as exc:
                raise AgentFailure("bad_response", f"malformed interrupt: {exc}") from None
            yield event
        yield DoneEvent()

    # --- errors ---------------------------------------------------------------------------
    def _error(
        self, code: str, lang: str, cause: str, *, exc_info: bool = False, **params: object
    ) -> ErrorEvent:
        """Log the technical cause (redacted), return the user's localised message."""
        return agent_error(code, lang, cause, agent=self.display_url, secrets=self._secrets, exc_info=exc_info,
                           **params)

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
    """Parsed JSON data; `_NOT_JSON` for plain text; `MalformedPayload` when it looks like a broken
    JSON object (starts with `json_marker`), since showing that raw would only leak junk."""
    try:
        return orjson.loads(data)
    except ValueError:
        if data.lstrip().startswith(json_marker):
            raise MalformedPayload(f"invalid JSON data: {data[:80]!r}") from None
        return _NOT_JSON  # plain-text data is allowed


def _text_field(data: str, *keys: str, json_marker: str = "{") -> tuple[str, Any]:
    """The event's text from JSON `keys` (first string found), or the plain-text data itself."""
    parsed = _loads(data, json_marker)
    if isinstance(parsed, dict):
        for key in keys:
            if isinstance(parsed.get(key), str):
                return parsed[key], parsed
        raise MalformedPayload(f"no string field among {keys}")
    if isinstance(parsed, str):
        return parsed, parsed
    return data, parsed


def parse_event(sse: ServerSentEvent) -> AgentEvent | None:
    """One SSE event → a typed event; None for empty text and unknown event types."""
    if sse.event == "message":
        data = sse.data
        if data.startswith('{"'):  # the common shape, {"content": "..."}, read in one step
            try:
                parsed = orjson.loads(data)
            except ValueError:
                raise MalformedPayload(f"invalid JSON data: {data[:80]!r}") from None
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
        return interrupt_from(sse.data if parsed is _NOT_JSON else parsed)
    if sse.event == "error":
        try:
            detail, _ = _text_field(sse.data, "message", "error", "detail")
        except MalformedPayload:
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


async def _drain(events: AsyncIterator[ServerSentEvent]) -> None:
    """Read what follows `done` (normally just the end of the body) so the pooled connection can
    be reused; an agent that keeps talking only costs us that connection."""
    ignored = 0
    try:
        async with asyncio.timeout(_DRAIN_TIMEOUT_S):
            async for _ in events:
                ignored += 1
    except (httpx.HTTPError, AgentFailure, TimeoutError):
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
            raise AgentFailure("too_large", f"body over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


__all__ = ["ACCEPT", "DEFAULT_MAX_EVENT_BYTES", "ExternalAgentClient", "default_retry_policy", "parse_event"]
