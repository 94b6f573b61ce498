"""`/admin/...` on Chainlit's FastAPI app, every route behind `access.require_admin`.

Routes must sit before Chainlit's catch-all UI route (routes added after it are never reached:
Chainlit issue #1819), so they are moved in front of it once added.

- `GET /admin` → the first section; `GET /admin/<section>` → that section in the page shell;
- `GET /admin/audit/receipts/<operation_id>?attempt=N` → one receipt's detail.
"""

from __future__ import annotations

from typing import Any

from fastapi import Depends, HTTPException
from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.requests import Request

from chatbot.admin.access import require_admin
from chatbot.admin.page import render_page
from chatbot.admin.sections import section, sections

ADMIN_ROUTE = "/admin"


def _paths(entry: Any) -> list[str]:
    if isinstance(getattr(entry, "path", None), str):
        return [entry.path]
    router = getattr(entry, "original_router", None) or entry
    return [path for route in getattr(router, "routes", []) for path in _paths(route)]


def _before_catch_all(app: Any, count: int) -> None:
    """Move the last `count` routes in front of Chainlit's `/{full_path:path}` route."""
    routes = app.router.routes
    added = [routes.pop() for _ in range(count)][::-1]
    catch_all = next(
        (i for i, entry in enumerate(routes) if any(p.endswith("/{full_path:path}") for p in _paths(entry))),
        len(routes),
    )
    routes[catch_all:catch_all] = added


async def admin_home(user: Any = Depends(require_admin)) -> RedirectResponse:
    first = sections()[0].key if sections() else "audit"
    return RedirectResponse(f"{ADMIN_ROUTE}/{first}", status_code=307)


async def admin_section(key: str, request: Request, user: Any = Depends(require_admin)) -> HTMLResponse:
    found = section(key)
    if found is None:
        raise HTTPException(status_code=404, detail="no such section")
    body = await found.render(request, user)
    return HTMLResponse(render_page(found.title, body, active=found.key, user=user.identifier))


async def receipt_detail(
    operation_id: str, attempt: int | None = None, user: Any = Depends(require_admin)
) -> HTMLResponse:
    from chatbot.admin.audit import render_receipt

    body = await render_receipt(operation_id, attempt)
    if body is None:
        raise HTTPException(status_code=404, detail="no such receipt")
    return HTMLResponse(render_page("Receipt", body, active="audit", user=user.identifier))


def register_admin_routes(app: Any = None) -> None:
    """Add the admin routes to Chainlit's server (idempotent) and load the built-in sections."""
    import chatbot.admin.analytics  # noqa: F401  (registers the analytics section)
    import chatbot.admin.audit  # noqa: F401  (registers the audit section)

    if app is None:
        from chainlit.server import app as chainlit_app

        app = chainlit_app
    if any(ADMIN_ROUTE + "/{key}" in _paths(route) for route in app.router.routes):
        return
    # Most specific first: /admin/audit/receipts/... must not be read as a section key.
    app.add_api_route(ADMIN_ROUTE + "/audit/receipts/{operation_id}", receipt_detail, methods=["GET"])
    app.add_api_route(ADMIN_ROUTE + "/{key}", admin_section, methods=["GET"])
    app.add_api_route(ADMIN_ROUTE, admin_home, methods=["GET"])
    _before_catch_all(app, 3)


__all__ = ["ADMIN_ROUTE", "register_admin_routes"]
