"""A scripted external agent for tests: a real Starlette app that misbehaves on request.

The behaviour is chosen by a path prefix (`POST /{behaviour}/assistant`) or, on plain
`POST /assistant`, by the first word of the message. Every request is recorded in
`app.state.received` (body and headers) so tests can assert what the client sent.
"""

from __future__ import annotations

import asyncio
import json
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

TOOL_LABEL = "workout_plan(goal=muscle)"
INTERRUPT = {
    "prompt": "Anything I should know? An injury, an allergy, a diet?",
    "choices": ["Injury", "Allergy", "Vegetarian", "Vegan", "Nothing to add"],
    "kind": "constraints",
}
HUGE_EVENT_BYTES = 1_200_000
SLOW_GAP_S = 0.15
SLOW_CHUNKS = ["one ", "two ", "three ", "four ", "five"]
HANG_S = 1.5  # longer than the client's read timeout in the tests


def _event(name: str, data: Any) -> ServerSentEvent:
    return ServerSentEvent(event=name, data=data if isinstance(data, str) else json.dumps(data))


def _sse(events: list[ServerSentEvent], gap: float = 0.0) -> EventSourceResponse:
    async def gen() -> AsyncIterator[ServerSentEvent]:
        for event in events:
            if gap:
                await asyncio.sleep(gap)
            yield event

    return EventSourceResponse(gen())


def _raw_sse(parts: list[str]) -> StreamingResponse:
    """Hand-written SSE bytes, for what sse-starlette refuses to produce."""

    async def gen() -> AsyncIterator[str]:
        for part in parts:
            yield part
            await asyncio.sleep(0.01)  # separate network writes

    return StreamingResponse(gen(), media_type="text/event-stream")


async def normal(body: dict[str, Any]) -> Response:
    return _sse(
        [
            _event("message", {"content": "Hello"}),
            _event("message", {"content": ", "}),
            _event("message", "plain text chunk"),  # plain-text data is accepted too
            _event("message", {"content": f" you said: {body.get('message', '')}"}),
            _event("done", {}),
        ]
    )


async def tool(body: dict[str, Any]) -> Response:
    return _sse(
        [
            _event("tool_call", {"message": TOOL_LABEL, "name": "workout_plan"}),
            _event("message", {"content": "Here is your plan."}),
            _event("done", {}),
        ]
    )


async def interrupt(body: dict[str, Any]) -> Response:
    return _sse(
        [
            _event("message", {"content": "A 4-day split."}),
            _event("interrupt", INTERRUPT),
            _event("done", {}),
        ]
    )


FOLDED_PLAN = "## Your plan\n" + "".join(f"- Day {i}: squat 3x8\n" for i in range(1, 15))


async def folded(body: dict[str, Any]) -> Response:
    """A summary, a section marked `folded`, and `folded` values a client must shrug off."""
    return _sse(
        [
            _event("message", {"content": "**What changed:** knee.\n\n"}),
            _event("message", {"content": FOLDED_PLAN, "folded": {"title": "Full plan (updated)"}}),
            _event("message", {"content": "odd", "folded": "not an object"}),
            _event("message", {"content": "blank", "folded": {"title": "  "}}),
            _event("done", {}),
        ]
    )


async def json_reply(body: dict[str, Any]) -> Response:
    return JSONResponse({"response": f"JSON answer to: {body.get('message', '')}"})


async def json_interrupt(body: dict[str, Any]) -> Response:
    return JSONResponse({"response": "Noted.", "interrupt": INTERRUPT})


async def json_broken(body: dict[str, Any]) -> Response:
    return Response('{"response": "unterminated', media_type="application/json")


async def http500(body: dict[str, Any]) -> Response:
    return PlainTextResponse("Traceback (most recent call last): boom", status_code=500)


async def http429(body: dict[str, Any]) -> Response:
    return JSONResponse({"detail": "rate limited"}, status_code=429)


async def hang(body: dict[str, Any]) -> Response:
    """No byte at all before the client's read timeout."""
    await asyncio.sleep(HANG_S)
    return JSONResponse({"response": "too late"})


async def idle(body: dict[str, Any]) -> Response:
    """Starts streaming, then goes silent past the read timeout."""

    async def gen() -> AsyncIterator[ServerSentEvent]:
        yield _event("message", {"content": "Working on it"})
        await asyncio.sleep(HANG_S)
        yield _event("message", {"content": " too late"})
        yield _event("done", {})

    return EventSourceResponse(gen())


async def cut(body: dict[str, Any]) -> Response:
    """Ends the body in the middle of an event: no `done`."""
    return _raw_sse(
        [
            'event: message\ndata: {"content": "partial answer"}\n\n',
            'event: message\ndata: {"cont',
        ]
    )


async def crash(body: dict[str, Any]) -> Response:
    """Drops the TCP connection mid-body (no final chunk)."""

    async def gen() -> AsyncIterator[str]:
        yield 'event: message\ndata: {"content": "before the crash"}\n\n'
        await asyncio.sleep(0.05)
        yield 'event: message\ndata: {"content": "half'
        await asyncio.sleep(0.05)
        raise RuntimeError("agent process died")

    return StreamingResponse(gen(), media_type="text/event-stream")


async def malformed(body: dict[str, Any]) -> Response:
    return _raw_sse(
        [
            "this line is not sse at all\n",
            "event: tool_call\ndata: {not json\n\n",
            ":comment line\n",
            'event: message\ndata: {"content": "still readable"}\n\n',
            'event: interrupt\ndata: {"choices": "not a list"}\n\n',
            "event: mystery\ndata: ignored\n\n",
            'event: message\ndata: {"no_content_key": 1}\n\n',
            "event: done\ndata: {}\n\n",
        ]
    )


async def huge(body: dict[str, Any]) -> Response:
    blob = "x" * HUGE_EVENT_BYTES
    payload = json.dumps({"content": blob})
    pieces = [payload[i : i + 64_000] for i in range(0, len(payload), 64_000)]
    return _raw_sse(
        ['event: message\ndata: {"content": "small first"}\n\n', "event: message\ndata: "]
        + pieces
        + ["\n\n", "event: done\ndata: {}\n\n"]
    )


async def medium(body: dict[str, Any]) -> Response:
    """One 50 kB event: fine by default, too large under a small configured cap."""
    return _sse([_event("message", {"content": "m" * 50_000}), _event("done", {})])


def _gzip_sse(text: str) -> StreamingResponse:
    """An SSE body compressed with gzip (`Content-Encoding: gzip`), sent in small pieces."""
    packer = zlib.compressobj(wbits=31)  # gzip container
    packed = packer.compress(text.encode()) + packer.flush()

    async def gen() -> AsyncIterator[bytes]:
        for i in range(0, len(packed), 1024):
            yield packed[i : i + 1024]
            await asyncio.sleep(0)

    return StreamingResponse(gen(), media_type="text/event-stream", headers={"Content-Encoding": "gzip"})


async def gzipped(body: dict[str, Any]) -> Response:
    return _gzip_sse('event: message\ndata: {"content": "compressed "}\n\n'
                     'event: message\ndata: {"content": "and fine"}\n\nevent: done\ndata: {}\n\n')


async def gzip_bomb(body: dict[str, Any]) -> Response:
    """A few kB on the wire that inflate to one event bigger than the cap."""
    return _gzip_sse("event: message\ndata: " + "z" * HUGE_EVENT_BYTES * 3 + "\n\nevent: done\ndata: {}\n\n")


async def html(body: dict[str, Any]) -> Response:
    return HTMLResponse("<html><body>Welcome to nginx!</body></html>")


async def slow(body: dict[str, Any]) -> Response:
    """Healthy but slow: every gap is under the read timeout, the total is above it."""
    events = [_event("message", {"content": c}) for c in SLOW_CHUNKS] + [_event("done", {})]
    return _sse(events, gap=SLOW_GAP_S)


async def agent_error(body: dict[str, Any]) -> Response:
    return _sse(
        [
            _event("message", {"content": "Let me check"}),
            _event("error", {"message": "KeyError: 'secret internals' at node advisor"}),
            _event("done", {}),
        ]
    )


async def no_done(body: dict[str, Any]) -> Response:
    return _sse([_event("message", {"content": "complete events, but no done"})])


BEHAVIOURS: dict[str, Callable[[dict[str, Any]], Awaitable[Response]]] = {
    "normal": normal,
    "tool": tool,
    "interrupt": interrupt,
    "folded": folded,
    "json": json_reply,
    "json_interrupt": json_interrupt,
    "json_broken": json_broken,
    "http500": http500,
    "http429": http429,
    "hang": hang,
    "idle": idle,
    "cut": cut,
    "crash": crash,
    "malformed": malformed,
    "huge": huge,
    "medium": medium,
    "gzip": gzipped,
    "gzip_bomb": gzip_bomb,
    "html": html,
    "slow": slow,
    "agent_error": agent_error,
    "no_done": no_done,
}


async def assistant(request: Request) -> Response:
    body = await request.json()
    request.app.state.received.append(
        {
            "body": body,
            "headers": dict(request.headers),
            "path": request.url.path,
            "client_port": request.client.port if request.client else None,
        }
    )
    name = request.path_params.get("behaviour")
    if name is None:
        words = str(body.get("message", "")).split()
        name = words[0] if words and words[0] in BEHAVIOURS else "normal"
    handler = BEHAVIOURS.get(name)
    if handler is None:
        return PlainTextResponse("no such behaviour", status_code=404)
    return await handler(body)


def create_app() -> Starlette:
    """A fresh scripted agent; `app.state.received` lists the requests it got."""
    app = Starlette(
        routes=[
            Route("/assistant", assistant, methods=["POST"]),
            Route("/{behaviour}/assistant", assistant, methods=["POST"]),
        ]
    )
    app.state.received = []
    return app
