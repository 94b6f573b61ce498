"""A socket reconnect re-shows the thread after the turn in progress, not in the middle of it (issue 24).

Stock Chainlit 2.12: when the browser's socket reconnects to a session it already holds (the page
switching to the thread's chat profile right after a resume, a network blip), `connection_successful`
resumes the thread again: it reads the thread from the database, runs `on_chat_resume`, and emits
`resume_thread`, and the browser *replaces* every message on the page with that copy. When a turn is
still running in the session (a quick choice clicked a moment before the reconnect), the copy is read
before the turn's messages are written: the page loses the turn's echo and answer, or keeps the turn's
new prompt next to a second copy the restore adds, or shows the turn alone with the history gone
(measured in Chromium: about 1 reconnect in 10 that meets a click).

So the re-resume of a reconnected session waits (bounded) until the session's turn is over — a click's
callback (`running(session_id)`, held by `chatbot.chainlit_fixes.action_route`) or a message's task
(`session.current_task`) — and until the data layer has written the steps already sent, then runs as
Chainlit's own handler: its copy holds the whole turn, and the pending prompt it restores is the new one.
A first connection is untouched.

Also stock Chainlit: a session whose first socket closed before its thread was shown (the page
replaces its sockets quickly while it opens a thread) and that then reconnects is treated as a new
chat (`restored and not has_first_interaction`: `on_chat_start`, no resume). The page still shows
the thread and its buttons; a click there then ran in that empty session: Chainlit named the thread
after the button ("agent_choice"), the click resumed nothing, and the session's default profile was
saved into the thread, so the thread came back as the Assistant without its prompt, for good
(seen in Chromium, issue 24). Such a session resumes the thread it was opened on, as a first
connection would.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

from chainlit.data import get_data_layer
from chainlit.session import WebsocketSession

logger = logging.getLogger(__name__)

TURN_WAIT_S = 180.0  # a turn longer than this gets the re-resume anyway (Chainlit's behaviour)
_POLL_S = 0.05
_clicks: Counter[str] = Counter()  # session id -> action callbacks running in it


@contextlib.asynccontextmanager
async def running(session_id: str) -> AsyncIterator[None]:
    """Mark a click's callback as running in `session_id` while the block runs."""
    _clicks[session_id] += 1
    try:
        yield
    finally:
        _clicks[session_id] -= 1
        if _clicks[session_id] <= 0:
            del _clicks[session_id]


def turn_in_progress(session: Any) -> bool:
    """A click's callback or a message's task still runs in this session."""
    if _clicks.get(session.id):
        return True
    task = getattr(session, "current_task", None)
    return task is not None and not task.done()


def opened_on_thread_not_shown(session: Any) -> bool:
    """A session opened on a thread, back on a new socket before that thread was ever shown."""
    return bool(session.restored and not session.has_first_interaction and session.thread_id_to_resume)


def is_reconnect(session: Any) -> bool:
    """The socket came back to a session that had already shown its thread (Chainlit's
    `connection_successful` will resume that thread a second time)."""
    return bool(session.restored and session.has_first_interaction and session.thread_id_to_resume)


async def wait_for_turn(session: Any, timeout_s: float | None = None) -> float:
    """Until the session's turn is over (at most `timeout_s`, default `TURN_WAIT_S`) and its steps
    are written; the seconds waited."""
    started = time.monotonic()
    deadline = started + (TURN_WAIT_S if timeout_s is None else timeout_s)
    while turn_in_progress(session) and time.monotonic() < deadline:
        await asyncio.sleep(_POLL_S)
    written = getattr(get_data_layer(), "steps_written", None)
    if written is not None:
        await written()
    return time.monotonic() - started


def install(sio: Any) -> None:
    """Wrap Chainlit's `connection_successful` (idempotent); install before `action_route`, whose
    wrapper then keeps a click waiting until this re-resume is done."""
    handlers = sio.handlers.setdefault("/", {})
    resumed = handlers.get("connection_successful")
    if resumed is None or getattr(resumed, "_relais_after_turn", False):
        return

    async def resume_after_turn(sid: str, *args: Any) -> Any:
        session = WebsocketSession.get(sid)
        if session is not None and opened_on_thread_not_shown(session):
            session.restored = False  # Chainlit then resumes the thread instead of starting a new chat
            logger.info("a session back before its thread was shown: resuming the thread, not a new chat")
        if session is not None and is_reconnect(session):
            waited = await wait_for_turn(session)
            if waited >= _POLL_S:  # the race happened and was absorbed: said once per reconnect
                logger.info("a reconnect's resume waited %.1f s for the turn in progress", waited)
        return await resumed(sid, *args)

    resume_after_turn._relais_after_turn = True  # type: ignore[attr-defined]
    handlers["connection_successful"] = resume_after_turn
