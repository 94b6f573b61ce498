"""What the app learns at its HTTP edge: the client's address and whether it came over HTTPS.

Chainlit's password callback only receives (username, password); the login limits need the
client's address, so a small ASGI middleware keeps each request's in a context variable.

Chainlit also swallows any exception its password callback raises (then answers 401), so a
refusal with its own status (429 + Retry-After) is handed to this middleware, which sends it in
place of Chainlit's answer: `replace_response(...)`.

Forwarded headers are honoured only from `RELAIS_TRUSTED_PROXIES`: uvicorn's own proxy-header
middleware (which Chainlit's server runs) applies them, and it reads `FORWARDED_ALLOW_IPS` when
the server starts; uvicorn trusts 127.0.0.1 by default, which would let anyone on the machine
claim any address, so the variable is always set from our setting. Cookies get `Secure` when the
request was HTTPS (directly or per a trusted proxy's `X-Forwarded-Proto`): Chainlit only marks
them so with SameSite=None.
"""

from __future__ import annotations

import contextvars
import json
import os
from typing import Any

from chatbot.settings import ChatbotSettings

_client_address: contextvars.ContextVar[str | None] = contextvars.ContextVar("relais_client_address", default=None)
_replacement: contextvars.ContextVar[dict | None] = contextvars.ContextVar("relais_replacement", default=None)


def client_address() -> str | None:
    """The current request's client address (after trusted-proxy resolution), if any."""
    return _client_address.get()


def replace_response(status: int, detail: str, headers: dict[str, str] | None = None) -> None:
    """Answer the current HTTP request with `{"detail": detail}` and `status`, whatever the
    route itself answers (no-op outside a request)."""
    slot = _replacement.get()
    if slot is not None:
        slot.update(status=status, detail=detail, headers=headers or {})


async def _send_replacement(send: Any, slot: dict) -> None:
    body = json.dumps({"detail": slot["detail"]}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode()) for k, v in slot["headers"].items()]
    await send({"type": "http.response.start", "status": slot["status"], "headers": headers})
    await send({"type": "http.response.body", "body": body})


def trust_proxies(settings: ChatbotSettings) -> None:
    """Tell uvicorn which peers' forwarded headers to honour (none unless configured)."""
    os.environ["FORWARDED_ALLOW_IPS"] = ",".join(
        p.strip() for p in settings.relais_trusted_proxies.split(",") if p.strip())


def _secure(header: bytes) -> bytes:
    attributes = [part.strip().lower() for part in header.split(b";")[1:]]
    return header if b"secure" in attributes else header + b"; Secure"


class EdgeMiddleware:
    """Pure ASGI: records the client address; marks cookies Secure on HTTPS requests."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        token = _client_address.set(client[0] if client else None)
        slot: dict = {}
        slot_token = _replacement.set(slot)
        https = scope.get("scheme") in ("https", "wss")
        replaced = False

        async def edge_send(message: dict) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start":
                if slot:
                    replaced = True
                    await _send_replacement(send, slot)
                    return
                if https:
                    message["headers"] = [
                        (name, _secure(value) if name.lower() == b"set-cookie" else value)
                        for name, value in message.get("headers", [])
                    ]
            elif replaced and message["type"] == "http.response.body":
                return  # the route's own body: replaced
            await send(message)

        try:
            await self.app(scope, receive, edge_send)
        finally:
            _replacement.reset(slot_token)
            _client_address.reset(token)


def install(app: Any) -> None:
    """Add the middleware to Chainlit's FastAPI app (before the server starts; idempotent)."""
    if not any(getattr(m, "cls", None) is EdgeMiddleware for m in app.user_middleware):
        app.add_middleware(EdgeMiddleware)
