"""The same thread open in several tabs: a turn taken in one tab is announced in the others.

Chainlit sends a turn's messages to the socket session that asked only. Another tab showing the
same thread keeps its old view, and its buttons answer a question that is no longer pending (the
click is refused: `chatbot.ui.pending`). So, once a turn has been shown, every other session of
this process on the same thread loses its live buttons and gets one short, unsaved note: the
conversation went on in another tab, reload to see it. (Tabs served by another instance are not
reached; their click is still refused, with the same advice.)
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import chainlit as cl
from chainlit.context import init_ws_context
from chainlit.session import WebsocketSession, ws_sessions_id

from assistant import i18n

log = logging.getLogger(__name__)


def other_sessions(thread_id: str | None, current: Any) -> list[WebsocketSession]:
    """The live socket sessions of this process showing `thread_id`, other than `current`."""
    if not thread_id:
        return []
    return [s for s in list(ws_sessions_id.values()) if s is not current and s.thread_id == thread_id]


async def _tell(session: WebsocketSession, author: str) -> None:
    """In `session`'s own context: its buttons go, then the note (not written to the thread)."""
    from chatbot.ui.pending import clear_live_prompt

    init_ws_context(session)
    language = "fr" if str(session.languages or "").lower().startswith("fr") else "en"
    await clear_live_prompt()
    note = cl.Message(content=i18n.translate("prompt.other_tab", language), author=author)
    note.persisted = True  # a note for this tab only, never stored in the conversation
    await note.send()


async def tell_other_tabs(author: str = "Relais") -> int:
    """After a turn: tell the other tabs on this thread (each in its own task); how many."""
    sessions = other_sessions(cl.context.session.thread_id, cl.context.session)
    for session in sessions:
        task = asyncio.get_running_loop().create_task(_tell(session, author))
        task.add_done_callback(_log_failure)
    return len(sessions)


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("another tab could not be told: %s", type(task.exception()).__name__)
