"""Per-conversation state kept in the Chainlit user session, and its rebuild on resume."""

from __future__ import annotations

from typing import Any

from assistant.modes import NORMAL
from chatbot.thread_mode import mode_from_metadata

MAX_HISTORY_TURNS = 20


def history_from_steps(steps: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The conversation as `[{"role", "content"}]` from a persisted thread's steps."""
    history: list[dict[str, str]] = []
    for step in sorted(steps, key=lambda s: s.get("createdAt") or ""):
        kind = step.get("type")
        output = step.get("output") or ""
        if kind == "user_message" and output:
            history.append({"role": "user", "content": output})
        elif kind == "assistant_message" and output and not step.get("parentId"):
            history.append({"role": "assistant", "content": output})
    return history[-2 * MAX_HISTORY_TURNS :]


def mode_from_thread(thread: dict[str, Any]) -> str:
    return mode_from_metadata(thread.get("metadata")) if thread else NORMAL


def browser_language(session: Any) -> str:
    """"fr" or "en" from the tab's browser (Accept-Language, which Chainlit 2.12 keeps as
    `session.language`; its user session has no "languages" key, so reading that one always gave
    English: a French tab got its notes in English)."""
    return "fr" if str(getattr(session, "language", "") or "").lower().startswith("fr") else "en"
