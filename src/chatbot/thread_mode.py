"""The orchestrator's mode of a thread, one-way (NORMAL → ALTER), kept in the thread's metadata."""

from __future__ import annotations

from typing import Any

from chainlit.data.sql_alchemy import SQLAlchemyDataLayer

from assistant.modes import ALTER, MODE_KEY, NORMAL
from chatbot.chainlit_fixes.data_layer import parse_metadata


def mode_from_metadata(metadata: Any) -> str:
    return ALTER if parse_metadata(metadata).get(MODE_KEY) == ALTER else NORMAL


async def read_thread_mode(layer: SQLAlchemyDataLayer, thread_id: str) -> str:
    """NORMAL unless the thread was switched to ALTER (it never goes back)."""
    rows = await layer.execute_sql('SELECT "metadata" FROM threads WHERE "id" = :id', {"id": thread_id})
    if isinstance(rows, list) and rows:
        return mode_from_metadata(rows[0].get("metadata"))
    return NORMAL


async def write_alter_mode(layer: SQLAlchemyDataLayer, thread_id: str, user_id: str | None = None) -> None:
    """Persist ALTER at once (Chainlit only writes the session into metadata at disconnect)."""
    await layer.update_thread(thread_id, user_id=user_id, metadata={MODE_KEY: ALTER})
