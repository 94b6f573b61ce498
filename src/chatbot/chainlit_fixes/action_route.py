"""A button click reaches the live session, or the person is told it was not delivered (issue 24).

Chainlit 2.12's `POST /project/action` looks the click's `sessionId` up in its in-memory sessions
and raises `ValueError("Session not found")` (a bare 500, nothing on the page) when it is not
there. The page sends the session id its chat state holds *now*, and that id can be ahead of the
socket: opening a thread resets it (the thread view clears the session, and again when the chat
profile's settings reload), while the buttons on the page came over the previous socket, which
the frontend's debounced reconnect closes only later. A click in that window names a session
whose socket has not connected yet. After a socket reconnect the session exists but its socket
is gone until the browser is back: whatever the click's answer sends is lost.

So this route, in front of Chainlit's, waits (bounded, `RELAIS_ACTION_WAIT_S`) until the click's
session is connected and done resuming its thread (its pending prompt re-sent), then runs
Chainlit's own handler; a session that connected to another instance meanwhile gets the click
forwarded (`chatbot.chainlit_fixes.session_router`). If the session never shows up, the answer is a JSON 409
with `code: "action_undelivered"` and a localized sentence, logged once (no session id, no
payload); the page script (`public/relais.js`) shows it under the chat. Nothing was resumed: the
graph still waits on the same prompt, and a reload shows its buttons again. Generic over the
action's name: every profile's buttons (coach, knowledge update, approval cards) go through it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from chainlit.server import UserParam, sio
from chainlit.server import call_action as chainlit_call_action
from chainlit.session import WebsocketSession
from chainlit.types import CallActionRequest
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from assistant import i18n
from chatbot.chainlit_fixes import reconnect_resume, session_router
from chatbot.chainlit_fixes.route_order import add_route
from chatbot.settings import chatbot_settings

logger = logging.getLogger(__name__)

PATH = "/project/action"
UNDELIVERED = "action_undelivered"
_POLL_S = 0.1
_DIRECTORY_EVERY = 5  # polls between two looks at the shared session directory
_settling: set[str] = set()  # sessions between their socket's connect and the end of their (re)resume


def _session(session_id: str) -> Any:
    return WebsocketSession.get_by_id(session_id)


def _ready(session: Any) -> bool:
    """Connected now, and not between connect and the end of `connection_successful` (the resume
    of its thread, which re-sends the pending prompt, runs there); a session opened on a thread has
    shown it (a click run before would make Chainlit start a new conversation in that thread)."""
    if session is None or session.id in _settling:
        return False
    if session.thread_id_to_resume and not session.has_first_interaction:
        return False
    return bool(sio.manager.is_connected(session.socket_id, "/"))


async def wait_for_session(session_id: str, timeout_s: float) -> tuple[str, Any]:
    """("local", session) once it is ready here, ("remote", url) once another instance holds it,
    ("gone", None) at the deadline."""
    deadline = time.monotonic() + timeout_s
    polls = 0
    while True:
        session = _session(session_id)
        if _ready(session):
            return "local", session
        if session is None and polls % _DIRECTORY_EVERY == 0:
            owner = await session_router.owner_elsewhere(session_id)
            if owner:
                return "remote", owner
        if time.monotonic() >= deadline:
            return "gone", None
        polls += 1
        await asyncio.sleep(_POLL_S)


def _language(request: Request) -> str:
    accepted = (request.headers.get("accept-language") or "").lower()
    return "fr" if accepted.startswith("fr") else "en"


def undelivered(request: Request, action: dict[str, Any], waited_s: float, reason: str) -> JSONResponse:
    """The clear answer for a click whose session is gone; one log line, no secrets."""
    name = str(action.get("name") or "?")[:64]
    logger.warning("click on %r not delivered: %s after %.1f s; answered 409 %s", name, reason, waited_s, UNDELIVERED)
    language = _language(request)
    return JSONResponse(status_code=409, content={
        "code": UNDELIVERED, "detail": i18n.translate("prompt.undelivered", language), "language": language})


async def call_action(request: Request, current_user: UserParam) -> Response:
    """Chainlit's click route, reached only with a ready session (see the module docstring);
    the login is checked first (401 before any wait)."""
    body = await request.body()
    try:
        payload = CallActionRequest.model_validate(json.loads(body or b"{}"))
    except ValueError:
        return JSONResponse(status_code=422, content={"detail": "expected {sessionId, action}"})
    started = time.monotonic()
    where, found = await wait_for_session(payload.sessionId, chatbot_settings().relais_action_wait_s)
    if where == "remote" and not session_router.forwarded(request.scope):
        status, headers, content = await session_router.forward_call(request.scope, body, found)
        out = {k.decode("latin-1"): v.decode("latin-1") for k, v in headers if k.lower() != b"content-length"}
        return Response(content=content, status_code=status, headers=out)
    waited = time.monotonic() - started
    if where != "local":
        return undelivered(request, payload.action, waited, "its session is not connected")
    if waited >= _POLL_S:  # the race of issue 24 happened and was absorbed: said once per click
        logger.info("click on %r waited %.1f s for its session's socket and resume", payload.action.get("name"), waited)
    async with reconnect_resume.running(payload.sessionId):  # a reconnect's re-resume waits for it
        return await chainlit_call_action(payload, current_user)


def install(sio: Any) -> None:
    """Register the route in front of Chainlit's and track when sessions are ready (idempotent);
    a reconnect's re-resume first waits for the turn in progress (`reconnect_resume`)."""
    add_route(PATH, call_action, ["POST"], first=True)
    reconnect_resume.install(sio)
    handlers = sio.handlers.setdefault("/", {})
    connect, resumed = handlers.get("connect"), handlers.get("connection_successful")
    if connect is None or resumed is None or getattr(resumed, "_relais_settles", False):
        return

    async def connect_settling(sid: str, environ: dict, auth: Any = None) -> Any:
        session_id = auth.get("sessionId") if isinstance(auth, dict) else None
        if session_id:
            _settling.add(session_id)  # before the session exists: a click waits for its resume
        try:
            accepted = await connect(sid, environ, auth)
        except BaseException:
            _settling.discard(session_id)
            raise
        if accepted is False:
            _settling.discard(session_id)
        return accepted

    async def resumed_then_ready(sid: str, *args: Any) -> Any:
        session = WebsocketSession.get(sid)
        try:
            return await resumed(sid, *args)
        finally:
            if session is not None:
                _settling.discard(session.id)

    resumed_then_ready._relais_settles = True  # type: ignore[attr-defined]
    handlers["connect"] = connect_settling
    handlers["connection_successful"] = resumed_then_ready
