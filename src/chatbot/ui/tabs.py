"""The same thread open in several tabs: every tab shows where the conversation is now.

Chainlit sends a turn's messages to the socket session that asked only (no upstream issue found
for Chainlit 2.12): another tab showing the same thread kept its old view, and its buttons
answered a question that was no longer pending (the click is refused: `chatbot.ui.pending`).
So, once a turn is over, every other session of this process on the same thread is shown the
stored thread again, the way Chainlit shows a reopened one (`resume_thread`: the page replaces
its messages), with the question it now waits on and its live buttons, followed by one short
unsaved note in that tab's language. A tab served by another instance is not reached: its
click is refused, then that tab is shown the current state the same way (`show_current_state`).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import chainlit as cl
from chainlit.context import init_ws_context
from chainlit.data import get_data_layer
from chainlit.server import sio
from chainlit.session import WebsocketSession, ws_sessions_id

from assistant import i18n
from chatbot.session import browser_language
from chatbot.ui.pending import clear_live_prompt, schedule_after_resume

log = logging.getLogger(__name__)

Resume = Callable[[dict[str, Any]], Awaitable[None]]  # the app's on_chat_resume (the profile's restore)
OTHER_TAB_NOTE = "prompt.other_tab"  # the note in a tab whose thread went on elsewhere
STALE_CLICK_NOTE = "prompt.stale_shown"  # the note in a tab whose click was refused


def other_sessions(thread_id: str | None, current: Any) -> list[WebsocketSession]:
    """The connected socket sessions of this process showing `thread_id`, other than `current`.

    Chainlit keeps a session for `session_timeout` (an hour) after its socket is gone: every
    reload leaves one or two. Shown the thread each, after every turn, they held the thread's lock
    in turn for dead pages — after twenty reloads the live tab's next prompt came back only after
    45 s (issue 24, measured in Chromium). A page that comes back resumes the thread anyway."""
    if not thread_id:
        return []
    return [s for s in list(ws_sessions_id.values())
            if s is not current and s.thread_id == thread_id and _socket_connected(s)]


def _socket_connected(session: Any) -> bool:
    return bool(sio.manager.is_connected(session.socket_id, "/"))


async def show_current_state(session: WebsocketSession, resume: Resume, note_key: str) -> bool:
    """In `session`'s own context: its page shows the stored thread, its pending question with
    live buttons, then the note `note_key`. False when there was nothing to show."""
    init_ws_context(session)
    running = session.current_task
    if running is not None and running is not asyncio.current_task() and not running.done():
        await asyncio.wait({running})  # that tab's own turn ends first: never wiped mid-answer
    layer = get_data_layer()
    if layer is None:
        return False
    written = getattr(layer, "steps_written", None)
    if written is not None:
        await written()  # the turn's last messages are in the thread read below
    thread = await layer.get_thread(session.thread_id)
    if not thread:
        return False
    await clear_live_prompt()  # the question this tab showed was answered: its buttons go
    _notes[session] = i18n.translate(note_key, browser_language(session))
    await resume(thread)  # the note, then the profile's pending question, once the page has the thread
    await cl.context.emitter.resume_thread(thread)
    return True


# The note a tab was shown with the current state, until that tab's next turn: the page may resume
# the same session again right after (it reconnects when it re-reads its project settings), and
# that second resume replaces the messages with the stored thread, where the note is not.
_notes: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def schedule_note() -> None:
    """Call first in `on_chat_resume`: this tab's note, if any, is shown again after the resume."""
    note = _notes.get(cl.context.session)
    if note:
        schedule_after_resume(lambda: _say(note))


def forget_note() -> None:
    """A turn begins in this tab: the note about another tab's turn is no longer news."""
    _notes.pop(cl.context.session, None)


async def _say(text: str) -> None:
    note = cl.Message(content=text, author="Relais")
    note.persisted = True  # a note for this tab only, never stored in the conversation
    await note.send()


def refresh_other_tabs(resume: Resume) -> int:
    """After a turn: every other tab on this thread shows where it is now (each in its own task,
    once that tab's own turn, if any, is over); how many tabs."""
    sessions = other_sessions(cl.context.session.thread_id, cl.context.session)
    for session in sessions:
        task = asyncio.get_running_loop().create_task(show_current_state(session, resume, OTHER_TAB_NOTE))
        task.add_done_callback(_log_failure)
    return len(sessions)


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("another tab could not be shown the thread: %s", type(task.exception()).__name__)
