"""`GET /relais/ui`: what the page script (public/relais.js) needs to know about this person and
this engine, that Chainlit's own settings do not say.

- `admin`: the person may open the operator pages, so the header shows a link to /admin;
- `footer_icons`: the profiles (by their header icon) the footer is true of — offline it says
  "answers are quoted from your documents", false of the coach, the debate and the knowledge
  update; `null` when it is true of every profile.
Anonymous → 401 (the page asks only once logged in).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import HTTPException
from fastapi.responses import JSONResponse
from starlette.requests import Request

from chatbot.admin.access import current_user, is_admin
from chatbot.chainlit_fixes.route_order import add_route
from chatbot.profiles.catalog import footer_icons

PAGE_INFO_ROUTE = "/relais/ui"


def page_info(user: Any, offline: bool) -> dict[str, Any]:
    return {"admin": is_admin(user), "footer_icons": footer_icons(offline)}


def register_page_info_route(offline: Callable[[], bool]) -> None:
    """Serve `GET /relais/ui`; `offline()` says which engine runs (as for the footer's text)."""

    async def info(request: Request) -> JSONResponse:
        user = await current_user(request)
        if user is None:
            raise HTTPException(status_code=401, detail="login required")
        return JSONResponse(page_info(user, bool(offline())), headers={"Cache-Control": "no-store"})

    add_route(PAGE_INFO_ROUTE, info, ["GET"])


__all__ = ["PAGE_INFO_ROUTE", "page_info", "register_page_info_route"]
