"""`/admin/...` on Chainlit's FastAPI app, every route behind `access.require_admin`.

Routes must sit before Chainlit's catch-all UI route (routes added after it are never reached:
Chainlit issue #1819): `chatbot.chainlit_fixes.route_order.add_route` places them in front of it.

- `GET /admin` → the first section; `GET /admin/<section>` → that section in the page shell;
- `GET /admin/audit/receipts/<operation_id>?attempt=N` → one receipt's detail.
"""

from __future__ import annotations

from typing import Any

from fastapi import Depends, HTTPException
from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.requests import Request

import chatbot.admin.analytics  # noqa: F401  (importing it registers the analytics section)
from chatbot.admin.access import require_admin
from chatbot.admin.audit import render_receipt  # importing it registers the audit section
from chatbot.admin.page import render_page
from chatbot.admin.sections import section, sections
from chatbot.chainlit_fixes.route_order import add_route

ADMIN_ROUTE = "/admin"


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
    body = await render_receipt(operation_id, attempt)
    if body is None:
        raise HTTPException(status_code=404, detail="no such receipt")
    return HTMLResponse(render_page("Receipt", body, active="audit", user=user.identifier))


def register_admin_routes() -> None:
    """Add the admin routes to Chainlit's server (idempotent) and load the built-in sections."""
    # Most specific first: /admin/audit/receipts/... must not be read as a section key.
    add_route(ADMIN_ROUTE + "/audit/receipts/{operation_id}", receipt_detail, ["GET"])
    add_route(ADMIN_ROUTE + "/{key}", admin_section, ["GET"])
    add_route(ADMIN_ROUTE, admin_home, ["GET"])


__all__ = ["ADMIN_ROUTE", "register_admin_routes"]
