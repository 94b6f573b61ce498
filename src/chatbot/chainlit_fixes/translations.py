"""Chainlit's UI texts, with a footer that matches the engine.

Chainlit reads `.chainlit/translations/<lang>.json` as static files, and its footer
(`chat.watermark`) warns that "LLMs can make mistakes" even when no model runs. Relais keeps
both footers in those files (`chat.watermark` with a model, `relais.watermarkOffline` offline)
and serves `GET /project/translations` ahead of Chainlit's own route, choosing the one for the
configured engine. Everything else is Chainlit's answer, unchanged.

Chainlit also warns "Translated markdown file for en-US not found. Defaulting to chainlit.md."
on every settings request of a browser whose language has no `chainlit_<lang>.md` (151 times in
one walk): that fallback is the intended readme, so `quiet_readme_fallback` lets the warning
through once per language.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from chainlit.config import config
from chainlit.logger import logger
from chainlit.server import _language_pattern
from fastapi import Query
from fastapi.responses import JSONResponse

from chatbot.chainlit_fixes.route_order import add_route

_README_FALLBACK = re.compile(r"Translated markdown file for (\S+) not found")


class OncePerLanguage(logging.Filter):
    """Chainlit's readme-fallback warning once per language; every other record untouched."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        match = _README_FALLBACK.search(record.getMessage())
        if match is None:
            return True
        if match.group(1) in self.seen:
            return False
        self.seen.add(match.group(1))
        return True


def quiet_readme_fallback() -> None:
    """Install the filter on Chainlit's logger (idempotent)."""
    if not any(isinstance(f, OncePerLanguage) for f in logger.filters):
        logger.addFilter(OncePerLanguage())

OFFLINE_KEY = "watermarkOffline"  # under the top-level "relais" section of a translation file


def for_engine(translation: dict[str, Any], offline: bool) -> dict[str, Any]:
    """The translation with the footer of the engine (a copy; the input is not changed)."""
    own = translation.get("relais") or {}
    chat = translation.get("chat")
    if not offline or not isinstance(chat, dict) or not own.get(OFFLINE_KEY):
        return translation
    return {**translation, "chat": {**chat, "watermark": own[OFFLINE_KEY]}}


def register_translation_route(offline: Any) -> None:
    """Serve the translations with the engine's footer; `offline()` says which engine runs."""
    path = f"{config.run.root_path}/project/translations"

    async def translations(language: str = Query(default="en-US", pattern=_language_pattern)) -> JSONResponse:
        translation = config.load_translation(config.ui.language or language)
        return JSONResponse(content={"translation": for_engine(translation, bool(offline()))})

    add_route(path, translations, ["GET"], first=True)  # ahead of Chainlit's route of the same path
