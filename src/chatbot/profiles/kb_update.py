"""The "Knowledge update" chat profile: a thin adapter over `kb_update.conversation`.

The conversation (what to say, what to ask, the checkpoint as the source of truth for the pending
question, one click one resume) is the knowledge update's; it yields `relais.events`, rendered
here by the one renderer like every other profile's turns.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import chainlit as cl
from chainlit.data import get_data_layer

from chatbot.session import browser_language
from chatbot.ui.pending import (
    clicked_interrupt_id,
    is_live,
    refuse_stale,
    schedule_after_resume,
    thread_lock,
)
from chatbot.ui.render import TurnRenderer
from kb_update.conversation import KbUpdateConversation
from kb_update.wording import lang_of
from relais.events import ChatEvent

AUTHOR = "Knowledge update"
PROFILE = "Knowledge update"


def _language() -> str:
    return lang_of(browser_language(cl.context.session))


def _conversation() -> KbUpdateConversation:
    return KbUpdateConversation(cl.context.session.thread_id, _language())


def _renderer(steps: list[dict[str, Any]] | None = None) -> TurnRenderer:
    return TurnRenderer(_language(), author=AUTHOR, steps=steps, side_panel=False)


async def _render(events: AsyncIterator[ChatEvent]) -> None:
    await _renderer().render(events)


async def _remember_profile() -> None:
    """The thread reopens in this profile even after a crash (Chainlit saves the session at disconnect)."""
    layer = get_data_layer()
    if layer is not None:
        try:
            await layer.update_thread(cl.context.session.thread_id, metadata={"chat_profile": PROFILE})
        except Exception:  # noqa: BLE001 - only the resume profile depends on it: said, not raised
            logging.getLogger(__name__).warning("could not remember the profile of thread %s",
                                                cl.context.session.thread_id, exc_info=True)


async def on_chat_start() -> None:
    """Nothing to send: the profile's welcome and starter are on the empty chat (profiles/catalog.py)."""


async def on_chat_resume(thread: dict[str, Any]) -> None:
    conversation, renderer = _conversation(), _renderer(list(thread.get("steps") or []))

    async def show_pending() -> None:
        events = [event async for event in conversation.show_pending()]
        if events:  # nothing pending: nothing to show (not an empty answer)
            for event in events:
                await renderer.handle(event)
            await renderer.finish()

    schedule_after_resume(show_pending)


async def on_message(message: cl.Message) -> None:
    await _remember_profile()
    async with thread_lock(cl.context.session.thread_id):
        await _render(_conversation().handle(message.content))


async def on_choice(action: cl.Action) -> None:
    async with thread_lock(cl.context.session.thread_id):
        if not is_live(action):
            await refuse_stale(_language(), author=AUTHOR)
            return
        value = str((action.payload or {}).get("value", ""))
        await _render(_conversation().choose(value, clicked_interrupt_id(action), action.label))
        if value != "type":
            try:
                await action.remove()  # the clicked button goes even if the page holds a second copy of it
            except Exception:  # noqa: BLE001 - a closed page must not fail the answer
                pass
