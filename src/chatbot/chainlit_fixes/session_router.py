"""Several instances behind a round-robin load balancer, no sticky sessions.

The browser's socket (websocket-only transport, `.chainlit/config.toml`) stays on the instance
that accepted it, but Chainlit's session-bound HTTP calls — a button click (`POST
/project/action`), feedback, element updates — carry only a `sessionId` and land on any
instance; Chainlit answers them from its in-memory sessions, so on another instance they fail.

So each instance records, in the shared chat database, which sessions it holds (`socket_sessions`,
written when a socket connects — again after a reconnect to another instance), and a small ASGI
middleware forwards a session-bound call it cannot serve to the instance that can. The call
keeps its cookies: the owner authenticates it as usual. A forwarded call is never forwarded
again. `RELAIS_INSTANCE_URL` says how the other instances reach this one.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
from collections.abc import Callable
from typing import Any

import httpx
from chainlit.session import WebsocketSession
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from chatbot.login_guard import create_table
from chatbot.settings import ChatbotSettings

logger = logging.getLogger(__name__)

DDL = ('CREATE TABLE IF NOT EXISTS socket_sessions ("session_id" TEXT PRIMARY KEY, '
       '"instance_url" TEXT NOT NULL, "updated_at" DOUBLE PRECISION NOT NULL)')
SESSION_BOUND = {("POST", "/project/action"), ("PUT", "/feedback"), ("DELETE", "/feedback"),
                 ("PUT", "/project/element"), ("DELETE", "/project/element")}
FORWARDED_HEADER = b"x-relais-forwarded"
_HOP_HEADERS = {"host", "content-length", "connection", "keep-alive", "transfer-encoding", "upgrade"}
MAX_BODY = 1_000_000
_installed: tuple[Callable[[], SessionDirectory], str] | None = None  # (directory, this instance's url)


def instance_url(settings: ChatbotSettings) -> str:
    """How the other instances reach this one (the setting, else the address it listens on)."""
    if settings.relais_instance_url:
        return settings.relais_instance_url.rstrip("/")
    host = os.environ.get("CHAINLIT_HOST") or settings.app_host
    port = os.environ.get("CHAINLIT_PORT") or str(settings.app_port)
    if host in ("0.0.0.0", "::", ""):
        host = socket.gethostname()
    return f"http://{host}:{port}"


class SessionDirectory:
    """Which instance holds which socket session, in the chat database every instance shares."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._ready = False

    async def _ensure(self) -> None:
        if not self._ready:
            await create_table(self.engine, DDL)
            self._ready = True

    async def claim(self, session_id: str, url: str) -> None:
        await self._ensure()
        async with self.engine.begin() as conn:
            await conn.execute(
                text('INSERT INTO socket_sessions ("session_id", "instance_url", "updated_at") VALUES (:s, :u, :t) '
                     'ON CONFLICT ("session_id") DO UPDATE SET "instance_url" = excluded."instance_url", '
                     '"updated_at" = excluded."updated_at"'),
                {"s": session_id, "u": url, "t": time.time()})

    async def owner(self, session_id: str) -> str | None:
        await self._ensure()
        async with self.engine.connect() as conn:
            row = (await conn.execute(text('SELECT "instance_url" FROM socket_sessions WHERE "session_id" = :s'),
                                      {"s": session_id})).first()
        return str(row[0]) if row else None


def _local(session_id: str) -> bool:
    return WebsocketSession.get_by_id(session_id) is not None


class SessionRouterMiddleware:
    """Forwards a session-bound call to the instance holding the session's socket."""

    def __init__(self, app: Any, directory: Callable[[], SessionDirectory], self_url: str) -> None:
        self.app, self.directory, self.self_url = app, directory, self_url

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        root = scope.get("root_path", "")
        path = scope.get("path", "")
        if root and path.startswith(root):
            path = path[len(root):]
        if scope["type"] != "http" or (scope.get("method"), path) not in SESSION_BOUND or forwarded(scope):
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive)
        owner = await self._owner_elsewhere(body)
        if owner is None:
            await self.app(scope, _replay(body), send)
            return
        await self._forward(scope, body, owner, send)

    async def _owner_elsewhere(self, body: bytes) -> str | None:
        try:
            session_id = json.loads(body or b"{}").get("sessionId")
        except (ValueError, AttributeError):
            return None
        return await _lookup_owner(self.directory, self.self_url, session_id)

    async def _forward(self, scope: dict, body: bytes, owner: str, send: Any) -> None:
        status, out, content = await forward_call(scope, body, owner)
        await send({"type": "http.response.start", "status": status, "headers": out})
        await send({"type": "http.response.body", "body": content})


async def _lookup_owner(directory: Callable[[], SessionDirectory], self_url: str, session_id: Any) -> str | None:
    """The other instance holding `session_id`'s socket (None: here, unknown, or no directory)."""
    if not isinstance(session_id, str) or not session_id or _local(session_id):
        return None
    try:
        owner = await directory().owner(session_id)
    except Exception:
        logger.exception("session directory unavailable")
        return None
    return owner if owner and owner != self_url else None


async def owner_elsewhere(session_id: str) -> str | None:
    """The other instance holding this session's socket, for a call already past the middleware
    (a click that waited for its session: the browser's new socket may land on another instance)."""
    if _installed is None:
        return None
    return await _lookup_owner(*_installed, session_id)


def forwarded(scope: dict) -> bool:
    """The call was already forwarded once by another instance (never forwarded again)."""
    return any(name == FORWARDED_HEADER for name, _ in scope.get("headers", []))


async def forward_call(scope: dict, body: bytes, owner: str) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """Send the call to `owner` with its cookies; its status, headers and body (503 if unreachable)."""
    headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope.get("headers", [])
               if k.decode("latin-1").lower() not in _HOP_HEADERS]
    headers.append((FORWARDED_HEADER.decode(), "1"))
    query = scope.get("query_string", b"").decode()
    url = owner + scope["path"] + (f"?{query}" if query else "")  # the path includes any root path
    try:
        async with httpx.AsyncClient(timeout=httpx.Timeout(300, connect=5)) as client:
            response = await client.request(scope["method"], url, content=body, headers=headers)
    except httpx.HTTPError as exc:
        logger.warning("session call not forwarded to %s: %s", owner, type(exc).__name__)
        payload = json.dumps({"detail": "the instance holding this session is unreachable: reconnecting"}).encode()
        return 503, [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())], payload
    out = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers.multi_items()
           if k.lower() not in _HOP_HEADERS | {"content-encoding"}]
    out.append((b"content-length", str(len(response.content)).encode()))
    return response.status_code, out, response.content


async def _read_body(receive: Any) -> bytes:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= MAX_BODY:
            chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _replay(body: bytes) -> Any:
    sent = False

    async def receive() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


def install(app: Any, sio: Any, engine: Callable[[], AsyncEngine], settings: ChatbotSettings) -> None:
    """Record sessions at socket connect; forward session-bound calls (idempotent)."""
    if any(getattr(m, "cls", None) is SessionRouterMiddleware for m in app.user_middleware):
        return
    me = instance_url(settings)
    directories: dict[int, SessionDirectory] = {}

    def directory() -> SessionDirectory:
        current = engine()
        return directories.setdefault(id(current), SessionDirectory(current))

    global _installed
    _installed = (directory, me)
    app.add_middleware(SessionRouterMiddleware, directory=directory, self_url=me)
    handlers = sio.handlers.setdefault("/", {})
    connect = handlers.get("connect")
    if connect is None or getattr(connect, "_relais_claims", False):
        return

    async def connect_and_claim(sid: str, environ: dict, auth: Any = None) -> Any:
        accepted = await connect(sid, environ, auth)
        session_id = auth.get("sessionId") if isinstance(auth, dict) else None
        if accepted is not False and session_id:
            try:
                await directory().claim(session_id, me)
            except Exception:
                logger.exception("could not record socket session")
        return accepted

    connect_and_claim._relais_claims = True  # type: ignore[attr-defined]
    handlers["connect"] = connect_and_claim
