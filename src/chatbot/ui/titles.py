"""Thread titles that tell threads apart in the sidebar.

Chainlit names a thread after its first message, whole: two threads that start with the same
request look identical, and a long request is cut by the sidebar before anything that differs.
Relais renames a new thread to the local time it was started followed by the start of its
first request ("14:05 · Build me a 3-day workout plan"): the sidebar cuts titles at about 26
characters and covers the end of the open thread's with its menu button, so the distinguishing
detail goes first. The title holds words only: the sidebar draws its own "…" where it cuts, so a
title carries no ellipsis of its own that would end up in the rename box. Invisible characters
(zero-width spaces…) are dropped; a request with nothing visible leaves the thread unnamed.
The time zone is the browser's (cookie `relais_tz`, set by public/relais.js), else UTC.
A thread the user renamed, or a resumed one, keeps its name.
"""

from __future__ import annotations

import asyncio
import logging
import re
from datetime import datetime, timezone
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import unquote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import chainlit as cl
from chainlit.context import context
from chainlit.data import get_data_layer

from assistant.input_guard import strip_invisible

logger = logging.getLogger(__name__)

TZ_COOKIE = "relais_tz"
MAX_REQUEST_CHARS = 80  # a long request is cut at a word; the sidebar shows about 26 characters
_TITLED = "relais_thread_titled"  # user-session flag
_tasks: set[asyncio.Task[Any]] = set()


def shorten(text: str, limit: int = MAX_REQUEST_CHARS) -> str:
    """The visible text on one line, cut at a word boundary within `limit` characters (no "…":
    the sidebar marks the cut itself, and a person renaming the thread edits words only)."""
    line = re.sub(r"\s+", " ", strip_invisible(text)).strip()
    if len(line) <= limit:
        return line
    cut = line[: limit + 1].rsplit(" ", 1)[0] if " " in line[: limit + 1] else line[:limit]
    return cut.rstrip(" ,;:.-—…")


def zone_from_cookie(cookie_header: str | None) -> ZoneInfo | None:
    if not cookie_header:
        return None
    try:
        morsel = SimpleCookie(cookie_header).get(TZ_COOKIE)
        return ZoneInfo(unquote(morsel.value)) if morsel else None
    except (ZoneInfoNotFoundError, ValueError, KeyError):
        return None


def thread_title(first_request: str, started: datetime, zone: ZoneInfo | None = None) -> str | None:
    """`HH:MM · <first request, shortened>` (local time; `HH:MM UTC` without a known zone);
    None when the request shows nothing (it names nothing)."""
    request = shorten(first_request)
    if not request:
        return None
    when = started.astimezone(zone).strftime("%H:%M") if zone else started.astimezone(timezone.utc).strftime("%H:%M UTC")
    return f"{when} · {request}"


def mark_resumed(session: Any) -> None:
    """A resumed thread keeps its name."""
    session.set(_TITLED, True)


def schedule_title(first_request: str) -> None:
    """On a thread's first message: rename it in the background once Chainlit has named it."""
    if cl.user_session.get(_TITLED):
        return
    session = cl.context.session
    zone = zone_from_cookie((getattr(session, "environ", None) or {}).get("HTTP_COOKIE"))
    title = thread_title(first_request, datetime.now(timezone.utc), zone)
    if title is None:  # nothing visible: the next message names the thread
        return
    cl.user_session.set(_TITLED, True)
    task = asyncio.create_task(_rename(session.thread_id, first_request, title))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


async def _rename(thread_id: str, first_request: str, title: str, wait_s: float = 10.0) -> None:
    """Wait until Chainlit has named the thread after the message, then rename it and tell the
    page (a `first_interaction` event makes the sidebar read the thread list again)."""
    layer = get_data_layer()
    if layer is None:
        return
    try:
        for _ in range(int(wait_s / 0.2)):
            thread = await layer.get_thread(thread_id)
            name = (thread or {}).get("name")
            if name is not None:
                break
            await asyncio.sleep(0.2)
        else:
            return
        if name.strip() != first_request.strip():  # renamed by the user meanwhile: keep it
            return
        await layer.update_thread(thread_id, name=title)
        await context.emitter.emit("first_interaction", {"interaction": title, "thread_id": thread_id})
        logger.info("thread %s titled %r", thread_id, title)
    except Exception:  # a title is never worth a failed turn
        logger.exception("could not rename thread %s", thread_id)
