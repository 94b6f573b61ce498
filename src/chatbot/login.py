"""The password login: limits first, then the (slow, off-loop) password check, then the log line.

A refused attempt answers HTTP 429 with a `Retry-After` header and a detail the login page
translates (`auth.login.errors.<detail>` in `.chainlit/translations/`): `locked` once the
maximum is reached, `toomanyattempts` while backing off. (Chainlit turns any exception of the
callback into a 401, so the answer goes through `edge.replace_response`.)
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from chatbot.auth import check_password
from chatbot.chainlit_fixes.edge import client_address, replace_response
from chatbot.login_guard import LoginGuard, Refusal
from chatbot.settings import ChatbotSettings

logger = logging.getLogger(__name__)

_guards: dict[int, LoginGuard] = {}


def guard_for(engine: Any, settings: ChatbotSettings) -> LoginGuard:
    """One guard per database engine (the data layer's: the shared chat database)."""
    guard = _guards.get(id(engine))
    if guard is None:
        guard = _guards[id(engine)] = LoginGuard(engine, settings)
    return guard


def refuse(refusal: Refusal) -> bool:
    """Answer 429 with the reason and when to come back; the login itself fails."""
    detail = "locked" if refusal.locked else "toomanyattempts"
    replace_response(429, detail, {"Retry-After": str(refusal.retry_after)})
    return False


async def login(username: str, password: str, guard: LoginGuard, settings: ChatbotSettings) -> bool:
    """True for the right password; False for a wrong one or a refused attempt (then HTTP 429)."""
    address = client_address()
    known = username in settings.users
    try:
        locking = await guard.begin_attempt(username, address)
    except Refusal as refusal:
        return refuse(refusal)
    if await asyncio.to_thread(check_password, username, password, settings):
        await guard.succeeded(username, address)
        logger.info("login: user %r signed in from %s", username, address or "an unknown address")
        return True
    if locking:
        guard.log_lock(locking, username, address, known_user=known)
        return refuse(Refusal(locked=True, retry_after=int(guard.window)))
    return False
