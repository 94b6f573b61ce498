"""The one admin access rule, for every page under /admin.

Anonymous (no valid Chainlit session cookie or bearer token) → 401, except a browser asking for
the page (Accept: text/html), which is sent to the login page instead of reading raw JSON; a
logged-in user who is not listed in `RELAIS_ADMINS` → 403; a listed user → the page. Identity
comes from Chainlit's own session (its cookie or bearer token), so there is no second login to
keep in sync.
"""

from __future__ import annotations

from typing import Any

from chainlit.auth import authenticate_user, require_login, reuseable_oauth
from fastapi import HTTPException
from starlette.requests import Request

from chatbot.settings import ChatbotSettings, chatbot_settings

LOGIN_PAGE = "/login"


def is_admin(user: Any, settings: ChatbotSettings | None = None) -> bool:
    """True when `user` (a Chainlit user, or None) is named in the admin setting."""
    identifier = getattr(user, "identifier", None)
    return bool(identifier) and identifier in (settings or chatbot_settings()).admins


def check_admin(user: Any, settings: ChatbotSettings | None = None) -> Any:
    """Return the user if admin; raise 401 when nobody is logged in, 403 for anyone else."""
    if user is None or not getattr(user, "identifier", None):
        raise HTTPException(status_code=401, detail="login required")
    if not is_admin(user, settings):
        raise HTTPException(status_code=403, detail="admins only")
    return user


async def current_user(request: Request) -> Any:
    """Chainlit's logged-in user of this request, or None (no token, an expired or invalid one)."""
    if not require_login():
        return None
    token = await reuseable_oauth(request)
    try:
        return await authenticate_user(token)
    except HTTPException:
        return None


def wants_page(request: Request) -> bool:
    """A browser navigating (it asks for HTML), not a script reading the status code."""
    return "text/html" in request.headers.get("accept", "")


async def require_admin(request: Request) -> Any:
    """FastAPI dependency for every /admin route."""
    user = await current_user(request)
    if user is None and wants_page(request):
        raise HTTPException(status_code=303, detail="login required", headers={"Location": LOGIN_PAGE})
    return check_admin(user)


__all__ = ["check_admin", "current_user", "is_admin", "require_admin", "wants_page"]
