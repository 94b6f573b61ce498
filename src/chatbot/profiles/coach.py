"""The "Coach" profile: the LangGraph coach in-process, rendered by the same adapter as the
external-agent path (text, tool steps, interrupt prompts with quick choices).

The coach's checkpoint (keyed by the Chainlit thread id) is the source of truth for the prompt it
waits on: it is shown again whenever the thread is, and a click resumes only that prompt, once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import chainlit as cl

from assistant import i18n
from chatbot.feedback import COACH
from chatbot.profiles._turn import accept, echo_choice
from chatbot.ui.pending import (
    clear_live_prompt,
    clicked_interrupt_id,
    is_live,
    live_interrupt_id,
    live_language,
    refuse_stale,
    schedule_after_resume,
    send_pending_prompt,
    thread_lock,
)
from chatbot.ui.render import TurnRenderer, pending_prompt
from coach import CoachRunner
from coach.runner import StaleInterrupt
from relais.events import DoneEvent, ErrorEvent

_runner: Any = None
_runner_lock = asyncio.Lock()


async def get_runner() -> Any:
    """One coach runner (graph + checkpointer) per process, created on first use."""
    global _runner
    async with _runner_lock:
        if _runner is None:
            _runner = await CoachRunner.create()
    return _runner


async def on_chat_start() -> None:
    await get_runner()


async def on_chat_resume(thread: dict[str, Any]) -> None:
    """The graph's checkpointer holds the conversation; its pending prompt comes back with buttons."""
    runner = await get_runner()
    event = await runner.pending(thread["id"])
    if event is None:
        return
    prompt = pending_prompt(event, str(event.payload.get("language") or "en"), "Coach")
    steps = list(thread.get("steps") or [])
    schedule_after_resume(lambda: send_pending_prompt(prompt, steps, persist=False))


async def on_message(message: cl.Message) -> None:
    async with thread_lock(cl.context.session.thread_id):
        await clear_live_prompt()  # a typed reply answers the pending prompt
        await answer(message.content)


async def on_choice(action: cl.Action) -> None:
    """A quick choice: resumes the graph only if its prompt is still the pending one, once."""
    thread_id = cl.context.session.thread_id
    clicked = clicked_interrupt_id(action)
    async with thread_lock(thread_id):
        pending = await (await get_runner()).pending(thread_id)
        if not is_live(action) or pending is None or (clicked and pending.interrupt_id != clicked):
            language = live_language()
            if pending is None or live_interrupt_id() != pending.interrupt_id:
                await clear_live_prompt()  # answered elsewhere (another tab): its buttons go too
            await refuse_stale(language, author="Coach")
            return
        await clear_live_prompt()
        value = str(action.payload.get("value", action.label))
        await echo_choice(value)
        await answer(value, interrupt_id=pending.interrupt_id)


async def _refusing_stale(events: AsyncIterator[Any], language: str) -> AsyncIterator[Any]:
    """The turn's events; a prompt answered meanwhile (another instance) becomes a short note."""
    try:
        async for event in events:
            yield event
    except StaleInterrupt:
        yield ErrorEvent(i18n.translate("prompt.stale", language), code="stale_interrupt")
        yield DoneEvent()


async def answer(raw: str, interrupt_id: str | None = None) -> None:
    prepared, language = await accept(raw)
    if not prepared.text:
        return
    runner = await get_runner()
    user = cl.user_session.get("user")
    events = _refusing_stale(
        runner.run_turn(
            cl.context.session.thread_id, prepared.text, user_id=getattr(user, "identifier", None),
            interrupt_id=interrupt_id,
        ),
        language,
    )
    await TurnRenderer(language, author="Coach", question=prepared.text, channel=COACH).render(events)
