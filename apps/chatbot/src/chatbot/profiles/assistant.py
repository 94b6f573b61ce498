"""The default profile: RAG answers with sources; with the orchestrator on, ALTER hands the
thread over to the external agent for good (persisted in the thread's metadata at once)."""

from __future__ import annotations

import logging
from typing import Any

import chainlit as cl
from chainlit.data import get_data_layer

from chatbot.core import i18n
from chatbot.core.orchestrator import get_orchestrator, prepare_question
from chatbot.persistence import ALTER, NORMAL, write_alter_mode
from chatbot.session import history_from_steps, mode_from_thread
from chatbot.ui.render import TurnRenderer
from relais.events import ModeEvent

logger = logging.getLogger(__name__)


def _language(text: str) -> str:
    from knowledge.language import detect_language

    browser = (cl.user_session.get("languages") or "").lower()
    guess = detect_language(text) if text else None
    return guess or ("fr" if browser.startswith("fr") else "en")


async def on_chat_start() -> None:
    cl.user_session.set("mode", NORMAL)
    cl.user_session.set("history", [])


async def on_chat_resume(thread: dict[str, Any]) -> None:
    cl.user_session.set("mode", mode_from_thread(thread))
    cl.user_session.set("history", history_from_steps(thread.get("steps") or []))


async def _persist_alter() -> None:
    layer = get_data_layer()
    thread_id = cl.context.session.thread_id
    user = cl.user_session.get("user")
    if layer is None:
        return
    try:
        await write_alter_mode(layer, thread_id, getattr(user, "id", None))
    except Exception:  # the mode still holds for this session; say it in the logs
        logger.exception("could not persist ALTER mode for thread %s", thread_id)


async def on_message(message: cl.Message) -> None:
    await answer(message.content)


async def on_choice(value: str) -> None:
    """A quick choice under an agent prompt: shown as the user's message, then relayed."""
    await cl.Message(content=value, type="user_message", author=(getattr(cl.user_session.get("user"), "identifier", None) or "user")).send()
    await answer(value)


async def answer(raw_question: str) -> None:
    language = _language(raw_question)
    prepared = prepare_question(raw_question, language)
    if prepared.notice:
        await cl.Message(content=prepared.notice, author="Relais").send()
    if not prepared.text:
        return
    mode = cl.user_session.get("mode") or NORMAL
    history: list[dict[str, str]] = cl.user_session.get("history") or []
    user = cl.user_session.get("user")
    orchestrator = get_orchestrator()
    renderer = TurnRenderer(language)

    async def events() -> Any:
        async for event in orchestrator.process_question(
            prepared.text,
            mode,
            user_id=getattr(user, "identifier", None) or "chainlit_user",
            conversation_history=history,
            thread_id=cl.context.session.thread_id,
            language=language,
        ):
            if isinstance(event, ModeEvent) and event.mode == ALTER and cl.user_session.get("mode") != ALTER:
                cl.user_session.set("mode", ALTER)
                await _persist_alter()
                await cl.Message(content=i18n.translate("handoff", language), author="Relais").send()
            yield event

    await renderer.render(events())
    history += [{"role": "user", "content": prepared.text}, {"role": "assistant", "content": renderer.text}]
    cl.user_session.set("history", history[-40:])


__all__ = ["answer", "on_chat_resume", "on_chat_start", "on_choice", "on_message"]
