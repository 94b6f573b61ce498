"""What every conversational profile does with a user's text before answering it."""

from __future__ import annotations

import chainlit as cl

from assistant.orchestrator import PreparedQuestion, prepare_question
from chatbot.session import browser_language
from chatbot.ui.render import echo_choice  # noqa: F401 (the profiles' one import of it)
from relais.language import detect_language


def user_language(text: str) -> str:
    """EN/FR from the text itself, else the browser's language."""
    fallback = browser_language(cl.context.session)
    return detect_language(text, default=fallback) if text.strip() else fallback


async def accept(raw: str) -> tuple[PreparedQuestion, str]:
    """The question to answer (empty: nothing to do) and its language; notices are shown."""
    language = user_language(raw)
    prepared = prepare_question(raw, language)
    if prepared.notice:
        await cl.Message(content=prepared.notice, author="Relais").send()
    return prepared, language
