"""Add HTTP routes to Chainlit's FastAPI app where they are reached.

Chainlit serves its UI from a catch-all `/{full_path:path}` route; a route added after it is
never reached (Chainlit issue #1819). Every Relais route goes through `add_route`, which moves
it just in front of that catch-all, or to the very front with `first=True` (to shadow one of
Chainlit's own routes with the same path).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from chainlit.server import app

_MARK = "_relais_route"


def _paths(entry: Any) -> list[str]:
    if isinstance(getattr(entry, "path", None), str):
        return [entry.path]
    router = getattr(entry, "original_router", None) or entry
    return [path for route in getattr(router, "routes", []) for path in _paths(route)]


def has_route(path: str, method: str = "GET") -> bool:
    """True when Relais already registered `method path` (Chainlit's own routes do not count)."""
    return any(getattr(r, "path", None) == path and method in (getattr(r, "methods", None) or ())
               and getattr(getattr(r, "endpoint", None), _MARK, False) for r in app.router.routes)


def add_route(path: str, endpoint: Callable[..., Any], methods: Sequence[str], *, first: bool = False,
              **options: Any) -> None:
    """Register `endpoint` once (idempotent per path and methods), ahead of the UI catch-all,
    or ahead of everything with `first=True`."""
    if all(has_route(path, method) for method in methods):
        return
    setattr(endpoint, _MARK, True)
    app.add_api_route(path, endpoint, methods=list(methods), **options)
    routes = app.router.routes
    route = routes.pop()
    if first:
        routes.insert(0, route)
        return
    catch_all = next((i for i, entry in enumerate(routes)
                      if any(p.endswith("/{full_path:path}") for p in _paths(entry))), len(routes))
    routes.insert(catch_all, route)
