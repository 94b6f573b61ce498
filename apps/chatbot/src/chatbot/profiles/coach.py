"""The "Coach" profile: the LangGraph coach in-process, rendered by the same adapter as the
external-agent path (text, tool steps, interrupt prompts with quick choices)."""

from __future__ import annotations

import asyncio
from typing import Any

import chainlit as cl

from chatbot.core.orchestrator import prepare_question
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


def _language(text: str) -> str:
    from knowledge.language import detect_language

    return detect_language(text) if text.strip() else "en"


async def on_chat_start() -> None:
    await get_runner()


async def on_chat_resume(thread: dict[str, Any]) -> None:
    await get_runner()  # the graph's checkpointer holds the conversation; nothing to rebuild


async def on_message(message: cl.Message) -> None:
    await answer(message.content)


async def on_choice(value: str) -> None:
    user = cl.user_session.get("user")
    await cl.Message(content=value, type="user_message", author=getattr(user, "identifier", None) or "user").send()
    await answer(value)


async def answer(raw: str) -> None:
    language = _language(raw)
    prepared = prepare_question(raw, language)
    if prepared.notice:
        await cl.Message(content=prepared.notice, author="Relais").send()
    if not prepared.text:
        return
    runner = await get_runner()
    await TurnRenderer(language, author="Coach").render(runner.run_turn(cl.context.session.thread_id, prepared.text))
