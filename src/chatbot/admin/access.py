"""The one admin access rule, for every page under /admin.

Anonymous (no valid Chainlit session cookie or bearer token) → 401; a logged-in user who is not
listed in `RELAIS_ADMINS` → 403; a listed user → the page. Identity comes from Chainlit's own
session (`chainlit.auth.get_current_user`), so there is no second login to keep in sync.
"""

from __future__ import annotations

from typing import Any

from fastapi import Depends, HTTPException

from relais.settings import Settings, get_settings


def is_admin(user: Any, settings: Settings | None = None) -> bool:
    """True when `user` (a Chainlit user, or None) is named in the admin setting."""
    identifier = getattr(user, "identifier", None)
    return bool(identifier) and identifier in (settings or get_settings()).admins


def check_admin(user: Any, settings: Settings | None = None) -> Any:
    """Return the user if admin; raise 401 when nobody is logged in, 403 for anyone else."""
    if user is None or not getattr(user, "identifier", None):
        raise HTTPException(status_code=401, detail="login required")
    if not is_admin(user, settings):
        raise HTTPException(status_code=403, detail="admins only")
    return user


def _current_user_dependency() -> Any:
    from chainlit.auth import get_current_user  # Chainlit's cookie/bearer session

    return get_current_user


async def require_admin(user: Any = Depends(_current_user_dependency())) -> Any:
    """FastAPI dependency for every /admin route."""
    return check_admin(user)


__all__ = ["check_admin", "is_admin", "require_admin"]
