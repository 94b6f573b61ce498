"""The "Coach" profile: the LangGraph coach in-process, rendered by the same adapter as the
external-agent path (text, tool steps, interrupt prompts with quick choices)."""

from __future__ import annotations

import asyncio
from typing import Any

import chainlit as cl

from chatbot.feedback import COACH
from chatbot.profiles._turn import accept, echo_choice
from chatbot.ui.render import TurnRenderer

_runner: Any = None
_runner_lock = asyncio.Lock()


async def get_runner() -> Any:
    """One coach runner (graph + checkpointer) per process, created on first use."""
    global _runner
    async with _runner_lock:
        if _runner is None:
            from coach import CoachRunner

            _runner = await CoachRunner.create()
    return _runner


async def on_chat_start() -> None:
    await get_runner()


async def on_chat_resume(thread: dict[str, Any]) -> None:
    await get_runner()  # the graph's checkpointer holds the conversation; nothing to rebuild


async def on_message(message: cl.Message) -> None:
    await answer(message.content)


async def on_choice(value: str) -> None:
    await echo_choice(value)
    await answer(value)


async def answer(raw: str) -> None:
    prepared, language = await accept(raw)
    if not prepared.text:
        return
    runner = await get_runner()
    user = cl.user_session.get("user")
    events = runner.run_turn(cl.context.session.thread_id, prepared.text, user_id=getattr(user, "identifier", None))
    await TurnRenderer(language, author="Coach", question=prepared.text, channel=COACH).render(events)
