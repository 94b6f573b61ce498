"""Guards for the agent service: shared bearer token, browser origins, and a per-client rate limit.

Why each exists: the coach service may listen beyond loopback, so a shared token
(`EXTERNAL_AGENT_TOKEN`, sent by the chatbot as `Authorization: Bearer …`) keeps strangers out;
a browser page on another site could otherwise POST to a local service, so any request carrying
an `Origin` header must come from `AGENT_ALLOWED_ORIGINS` (server-to-server callers send none);
and a sliding one-minute window per client bounds abuse.
"""

from __future__ import annotations

import hmac
import time
from collections import OrderedDict, deque


def parse_origins(value: str) -> set[str]:
    """`"https://a.example, http://localhost:8000"` → a set without trailing slashes."""
    return {o.strip().rstrip("/") for o in (value or "").split(",") if o.strip()}


def origin_allowed(origin: str | None, allowed: set[str]) -> bool:
    """No Origin header (not a browser) is fine; otherwise it must be listed ("*" allows all)."""
    if origin is None:
        return True
    return "*" in allowed or origin.rstrip("/") in allowed


def bearer_ok(header: str | None, token: str) -> bool:
    """Constant-time check of `Authorization: Bearer <token>`."""
    if not header:
        return False
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(value.strip().encode(), token.encode())


class RateLimiter:
    """At most `limit` requests per `window_s` per client key (sliding window, bounded memory)."""

    def __init__(self, limit: int, window_s: float = 60.0, max_clients: int = 10_000) -> None:
        self.limit = limit
        self.window_s = window_s
        self.max_clients = max_clients
        self._hits: OrderedDict[str, deque[float]] = OrderedDict()

    def check(self, key: str, now: float | None = None) -> float | None:
        """Record a request; None if allowed, else seconds until the client may retry."""
        if self.limit <= 0:
            return None
        now = time.monotonic() if now is None else now
        hits = self._hits.pop(key, None) or deque()
        while hits and now - hits[0] >= self.window_s:
            hits.popleft()
        self._hits[key] = hits
        while len(self._hits) > self.max_clients:
            self._hits.popitem(last=False)
        if len(hits) >= self.limit:
            return max(0.0, self.window_s - (now - hits[0]))
        hits.append(now)
        return None
