"""Chainlit's UI texts, with a footer that matches the engine.

Chainlit reads `.chainlit/translations/<lang>.json` as static files, and its footer
(`chat.watermark`) warns that "LLMs can make mistakes" even when no model runs. Relais keeps
both footers in those files (`chat.watermark` with a model, `relais.watermarkOffline` offline)
and serves `GET /project/translations` ahead of Chainlit's own route, choosing the one for the
configured engine. Everything else is Chainlit's answer, unchanged.
"""

from __future__ import annotations

from typing import Any

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
    from chainlit.config import config
    from chainlit.server import _language_pattern
    from fastapi import Query
    from fastapi.responses import JSONResponse

    from chatbot.chainlit_fixes.route_order import add_route

    path = f"{config.run.root_path}/project/translations"

    async def translations(language: str = Query(default="en-US", pattern=_language_pattern)) -> JSONResponse:
        translation = config.load_translation(config.ui.language or language)
        return JSONResponse(content={"translation": for_engine(translation, bool(offline()))})

    add_route(path, translations, ["GET"], first=True)  # ahead of Chainlit's route of the same path
