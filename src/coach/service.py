"""The orchestrator's external agent as an ASGI app speaking Relais's SSE protocol: the coach by
default, or any `relais.turns.TurnRunner` (`relais agent serve` serves a router between the booking
agent and the coach, `cli.agent_service`).

`POST /assistant` with `{"message", "user_id", "conversation_history", "thread_id"?}` streams
Server-Sent Events — `message` `{"content", "folded"?: {"title"}}` (`folded`: the content is a
whole section, e.g. a long plan after "what changed", to show collapsed), `tool_call` `{"message", "name"?}`,
`interrupt` (the human node's payload plus its `interrupt_id`), `error` `{"message"}`, then `done`
`{}`. The JSON reply's `response` holds all the text, folded sections included. The thread key is
`thread_id`, else `user_id`; a thread paused at the human node is resumed, never restarted. `Accept:
application/json` (without `text/event-stream`) gets one JSON reply `{"response", "interrupt",
"tool_calls", "error"}` instead. `GET /health` says the service is up and which engine answers.

One click, one resume: a body with `interrupt_id` answers that prompt only; when the thread no
longer waits on it the reply is 409 `{"detail" (localised), "code": "stale_interrupt", "pending"}`,
decided inside the thread's lock. `GET /threads/{thread_id}/pending?user_id=...` (same token) returns
`{"thread_id", "pending": {"interrupt_id", "prompt", "choices", "kind", "payload"} | null}`; a
thread written for another user is 403 (for reading and for resuming).

Checks, in order: allowed `Origin` (403), bearer token when `EXTERNAL_AGENT_TOKEN` is set (401),
body size (413), body shape (422), message length (413), rate limit per client (429): the
client is the `user_id` of a token-authenticated caller (the orchestrator relays many users),
else the remote address. The runner and its checkpointer are created once, in the lifespan.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError, field_validator
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from coach.runner import CoachRunner
from coach.security import RateLimiter, bearer_ok, origin_allowed, parse_origins
from coach.settings import CoachSettings, coach_settings
from relais import tracing
from relais.events import AgentEvent, ErrorEvent, InterruptEvent, TextChunk, ToolCallEvent
from relais.turns import StaleInterrupt, TurnRunner

log = logging.getLogger(__name__)

RunnerFactory = Callable[[], AbstractAsyncContextManager[TurnRunner]]
_BODY_OVERHEAD = 256 * 1024  # room for conversation_history beside the message


class AssistantRequest(BaseModel):
    """The orchestrator protocol's request body."""

    model_config = ConfigDict(extra="ignore")

    message: StrictStr
    user_id: StrictStr = Field(min_length=1, max_length=200)
    conversation_history: list[Any] = Field(default_factory=list)
    thread_id: StrictStr | None = Field(None, min_length=1, max_length=200)
    interrupt_id: StrictStr | None = Field(None, min_length=1, max_length=200)

    @field_validator("message")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("message must not be empty")
        return value

    @property
    def thread_key(self) -> str:
        return self.thread_id or self.user_id


def sse_event(event: AgentEvent) -> dict[str, str]:
    """One typed event → one SSE event of the protocol."""
    if isinstance(event, TextChunk):
        name, data = "message", {"content": event.text}
        if event.folded:  # a whole section a UI may show collapsed; older clients just show the text
            data["folded"] = {"title": event.folded}
    elif isinstance(event, ToolCallEvent):
        name, data = "tool_call", {"message": event.message}
        if event.name:  # the tool's name, so a client can title the step ("Used workout plan")
            data["name"] = event.name
    elif isinstance(event, InterruptEvent):
        name, data = "interrupt", interrupt_data(event)
    elif isinstance(event, ErrorEvent):
        name, data = "error", {"message": event.message}
    else:
        name, data = "done", {}
    return {"event": name, "data": json.dumps(data, ensure_ascii=False)}


def interrupt_data(event: InterruptEvent) -> dict[str, Any]:
    """The interrupt as sent on the wire: the human node's payload plus its `interrupt_id`."""
    data = dict(event.payload) or {"prompt": event.prompt, "choices": event.choices, "kind": event.kind}
    if event.interrupt_id:
        data["interrupt_id"] = event.interrupt_id
    return data


_STALE = {
    "en": "That question was already answered (perhaps in another tab), so this answer was not used.",
    "fr": "Cette question a déjà reçu une réponse (peut-être dans un autre onglet) : cette réponse n'a "
    "pas été utilisée.",
}


def _stale_problem(exc: StaleInterrupt, accept_language: str | None) -> JSONResponse:
    """409 in the conversation's language (else the caller's), with what is pending now."""
    pending = exc.pending
    language = str((pending.payload if pending else {}).get("language") or "")
    if language not in _STALE:
        language = "fr" if (accept_language or "").lower().startswith("fr") else "en"
    return JSONResponse(
        {
            "detail": _STALE[language],
            "code": "stale_interrupt",
            "pending": pending_data(pending),
        },
        status_code=409,
    )


def pending_data(event: InterruptEvent | None) -> dict[str, Any] | None:
    if event is None:
        return None
    return {
        "interrupt_id": event.interrupt_id,
        "prompt": event.prompt,
        "choices": list(event.choices),
        "kind": event.kind,
        "payload": dict(event.payload),
    }


def _problem(status: int, detail: str, **headers: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers=headers or None)


def _validation_detail(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_input=False, include_url=False):
        where = ".".join(str(p) for p in err.get("loc", ())) or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


async def _read_body(request: Request, limit: int) -> bytes | None:
    """The raw body, or None as soon as it exceeds `limit` bytes (chunked bodies included)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > limit:
            return None
    return bytes(body)


def _wants_json(request: Request) -> bool:
    accept = request.headers.get("accept", "").lower()
    return "application/json" in accept and "text/event-stream" not in accept


def create_app(
    runner_factory: RunnerFactory | None = None, settings: CoachSettings | None = None
) -> Starlette:
    """The agent service. `runner_factory()` returns an async context manager of a `TurnRunner`: the
    coach's runner by default, any agent's, or a router between several (`relais agent serve`)."""
    settings = settings or coach_settings()
    tracing.setup_tracing("relais-coach", settings.kit)  # only with OTEL_EXPORTER_OTLP_ENDPOINT
    factory: RunnerFactory = runner_factory or (lambda: CoachRunner.open(settings=settings.kit))
    endpoints = AgentEndpoints(settings)
    app = Starlette(
        routes=[
            Route("/assistant", endpoints.assistant, methods=["POST"]),
            Route("/health", endpoints.health, methods=["GET"]),
            Route("/threads/{thread_id}/pending", endpoints.pending, methods=["GET"]),
        ],
        middleware=_cors(endpoints.origins),
        lifespan=_lifespan(factory),
    )
    app.state.settings = settings
    return app


def _lifespan(factory: RunnerFactory) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    """The runner (and its checkpointer) opened once for the app's life, inside the server's event loop."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with factory() as runner:
            app.state.runner = runner
            log.info("coach service ready (engine: %s)", runner.engine)
            yield

    return lifespan


def _cors(origins: set[str]) -> list[Middleware]:
    """CORS only when origins are configured: without them browsers get no CORS headers at all."""
    if not origins:
        return []
    return [
        Middleware(
            CORSMiddleware,
            allow_origins=sorted(origins),
            allow_methods=["POST", "GET"],
            allow_headers=["Authorization", "Content-Type", "Accept"],
        )
    ]


class AgentEndpoints:
    """The service's endpoints and the checks they share, configured once from the settings."""

    def __init__(self, settings: CoachSettings) -> None:
        self.origins = parse_origins(settings.agent_allowed_origins)
        secret = settings.kit.external_agent_token
        self.token = secret.get_secret_value() if secret else None
        self.limiter = RateLimiter(settings.agent_rate_limit_per_minute)
        self.max_chars = settings.agent_max_message_chars

    async def health(self, request: Request) -> Response:
        runner: TurnRunner = request.app.state.runner
        return JSONResponse({"status": "ok", "engine": runner.engine})

    def refused(self, request: Request) -> Response | None:
        """Origin (403) and bearer token (401) checks, shared by every thread endpoint."""
        if not origin_allowed(request.headers.get("origin"), self.origins):
            return _problem(403, "origin not allowed")
        if self.token is not None and not bearer_ok(request.headers.get("authorization"), self.token):
            return _problem(401, "missing or invalid bearer token", **{"WWW-Authenticate": "Bearer"})
        return None

    async def pending(self, request: Request) -> Response:
        refused = self.refused(request)
        if refused is not None:
            return refused
        thread_id = request.path_params["thread_id"]
        user_id = request.query_params.get("user_id", "")
        if not user_id or len(user_id) > 200 or len(thread_id) > 200:
            return _problem(422, "query parameter user_id is required (at most 200 characters)")
        runner: TurnRunner = request.app.state.runner
        owner = await runner.owner(thread_id)
        if owner is not None and owner != user_id:
            return _problem(403, "this thread belongs to another user")
        event = await runner.pending(thread_id) if owner is not None else None
        return JSONResponse({"thread_id": thread_id, "pending": pending_data(event)})

    async def assistant(self, request: Request) -> Response:
        refused = self.refused(request)
        if refused is not None:
            return refused
        body = await self.read_request(request)
        if isinstance(body, Response):
            return body
        runner: TurnRunner = request.app.state.runner
        owner = await runner.owner(body.thread_key)
        if owner is not None and owner != body.user_id:
            return _problem(403, "this thread belongs to another user")
        # continues the orchestrator's trace (its `traceparent`); graph nodes become child spans
        turn_span = tracing.server_span("POST /assistant", request.headers, thread_id=body.thread_key)
        events = tracing.traced_in(turn_span, runner.run_turn(
            body.thread_key, body.message, body.conversation_history, user_id=body.user_id,
            interrupt_id=body.interrupt_id,
        ))
        try:  # the first event comes once the thread's lock is held and the prompt id checked
            first = await anext(events)
        except StaleInterrupt as exc:
            return _stale_problem(exc, request.headers.get("accept-language"))
        if _wants_json(request):
            return JSONResponse(await _collect(_prepend(first, events)))

        async def stream() -> AsyncIterator[dict[str, str]]:
            async for event in _prepend(first, events):
                yield sse_event(event)

        return EventSourceResponse(stream(), ping=15)

    async def read_request(self, request: Request) -> AssistantRequest | Response:
        """The checked body, or the refusal: size (413), shape (422), message length (413), then the
        rate limit (429) per client — the `user_id` of a token-authenticated caller, else the address."""
        max_chars = self.max_chars
        try:
            raw = await _read_body(request, max_chars * 4 + _BODY_OVERHEAD)
        except ClientDisconnect:
            return Response(status_code=400)
        if raw is None:
            return _problem(413, f"request body too large (message limit {max_chars} characters)")
        try:
            payload = json.loads(raw or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _problem(422, "body is not valid JSON")
        if not isinstance(payload, dict):
            return _problem(422, "body must be a JSON object with message and user_id")
        try:
            body = AssistantRequest.model_validate(payload)
        except ValidationError as exc:
            return _problem(422, _validation_detail(exc))
        if len(body.message) > max_chars:
            return _problem(413, f"message too long: {len(body.message)} > {max_chars} characters")
        authenticated = self.token is not None
        client = f"user:{body.user_id}" if authenticated else f"ip:{request.client.host if request.client else '?'}"
        retry_after = self.limiter.check(client)
        if retry_after is not None:
            return _problem(429, "too many requests, retry later", **{"Retry-After": str(int(retry_after) + 1)})
        return body


async def _prepend(first: AgentEvent, rest: AsyncIterator[AgentEvent]) -> AsyncIterator[AgentEvent]:
    """The primed first event, then the rest; the turn is closed (its lock released) at the end."""
    try:
        yield first
        async for event in rest:
            yield event
    finally:
        await rest.aclose()  # type: ignore[attr-defined]


async def _collect(events: AsyncIterator[AgentEvent]) -> dict[str, Any]:
    """The non-SSE fallback: the whole turn as one JSON object."""
    text: list[str] = []
    tool_calls: list[str] = []
    interrupt: dict[str, Any] | None = None
    error: str | None = None
    async for event in events:
        if isinstance(event, TextChunk):
            text.append(event.text)
        elif isinstance(event, ToolCallEvent):
            tool_calls.append(event.message)
        elif isinstance(event, InterruptEvent):
            interrupt = interrupt_data(event)
        elif isinstance(event, ErrorEvent):
            error = event.message
    response = "".join(text) or (error or "")
    return {"response": response, "interrupt": interrupt, "tool_calls": tool_calls, "error": error}
