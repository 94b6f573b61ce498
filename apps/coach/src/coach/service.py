"""The coach as the orchestrator's external agent: an ASGI app speaking its SSE protocol.

`POST /assistant` with `{"message", "user_id", "conversation_history", "thread_id"?}` streams
Server-Sent Events — `message` `{"content"}`, `tool_call` `{"message"}`, `interrupt` (the human
node's payload), `error` `{"message"}`, then `done` `{}`. The thread key is `thread_id`, else
`user_id`; a thread paused at the human node is resumed, never restarted. `Accept:
application/json` (without `text/event-stream`) gets one JSON reply `{"response", "interrupt",
"tool_calls", "error"}` instead. `GET /health` says the service is up and which engine answers.

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
from relais.events import AgentEvent, ErrorEvent, InterruptEvent, TextChunk, ToolCallEvent
from relais.settings import Settings, get_settings
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from coach.runner import CoachRunner
from coach.security import RateLimiter, bearer_ok, origin_allowed, parse_origins

log = logging.getLogger(__name__)

RunnerFactory = Callable[[], AbstractAsyncContextManager[CoachRunner]]
_BODY_OVERHEAD = 256 * 1024  # room for conversation_history beside the message


class AssistantRequest(BaseModel):
    """The orchestrator protocol's request body."""

    model_config = ConfigDict(extra="ignore")

    message: StrictStr
    user_id: StrictStr = Field(min_length=1, max_length=200)
    conversation_history: list[Any] = Field(default_factory=list)
    thread_id: StrictStr | None = Field(None, min_length=1, max_length=200)

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
    elif isinstance(event, ToolCallEvent):
        name, data = "tool_call", {"message": event.message}
    elif isinstance(event, InterruptEvent):
        name, data = (
            "interrupt",
            dict(event.payload)
            or {"prompt": event.prompt, "choices": event.choices, "kind": event.kind},
        )
    elif isinstance(event, ErrorEvent):
        name, data = "error", {"message": event.message}
    else:
        name, data = "done", {}
    return {"event": name, "data": json.dumps(data, ensure_ascii=False)}


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
    runner_factory: RunnerFactory | None = None, settings: Settings | None = None
) -> Starlette:
    """The agent service. `runner_factory()` must return an async context manager of a CoachRunner."""
    settings = settings or get_settings()
    factory: RunnerFactory = runner_factory or (lambda: CoachRunner.open(settings=settings))
    origins = parse_origins(settings.agent_allowed_origins)
    token = (
        settings.external_agent_token.get_secret_value() if settings.external_agent_token else None
    )
    limiter = RateLimiter(settings.agent_rate_limit_per_minute)
    max_chars = settings.agent_max_message_chars

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with factory() as runner:
            app.state.runner = runner
            log.info("coach service ready (engine: %s)", runner.engine)
            yield

    async def health(request: Request) -> Response:
        runner: CoachRunner = request.app.state.runner
        return JSONResponse({"status": "ok", "engine": runner.engine})

    async def assistant(request: Request) -> Response:
        if not origin_allowed(request.headers.get("origin"), origins):
            return _problem(403, "origin not allowed")
        authenticated = False
        if token is not None:
            if not bearer_ok(request.headers.get("authorization"), token):
                return _problem(
                    401, "missing or invalid bearer token", **{"WWW-Authenticate": "Bearer"}
                )
            authenticated = True
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
        client = (
            f"user:{body.user_id}"
            if authenticated
            else f"ip:{request.client.host if request.client else '?'}"
        )
        retry_after = limiter.check(client)
        if retry_after is not None:
            return _problem(
                429, "too many requests, retry later", **{"Retry-After": str(int(retry_after) + 1)}
            )

        runner: CoachRunner = request.app.state.runner
        events = runner.run_turn(body.thread_key, body.message, body.conversation_history, user_id=body.user_id)
        if _wants_json(request):
            return JSONResponse(await _collect(events))

        async def stream() -> AsyncIterator[dict[str, str]]:
            async for event in events:
                yield sse_event(event)

        return EventSourceResponse(stream(), ping=15)

    middleware = []
    if origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=sorted(origins),
                allow_methods=["POST", "GET"],
                allow_headers=["Authorization", "Content-Type", "Accept"],
            )
        )
    app = Starlette(
        routes=[
            Route("/assistant", assistant, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
        ],
        middleware=middleware,
        lifespan=lifespan,
    )
    app.state.settings = settings
    return app


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
            interrupt = dict(event.payload) or {"prompt": event.prompt, "choices": event.choices}
        elif isinstance(event, ErrorEvent):
            error = event.message
    response = "".join(text) or (error or "")
    return {"response": response, "interrupt": interrupt, "tool_calls": tool_calls, "error": error}
