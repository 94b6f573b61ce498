"""The chat database behind Chainlit: SQLite (default) or Postgres, chosen by DATABASE_URL.

Builds the repaired data layer (`chatbot.chainlit_fixes.data_layer`) over an engine tuned for
SQLite's single writer, with its tables in place (`chatbot.schema`) and element files stored in
the same database (`chatbot.chainlit_fixes.element_store`).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from chatbot.chainlit_fixes.data_layer import RelaisDataLayer, is_sqlite
from chatbot.chainlit_fixes.element_store import DatabaseBlobStore
from chatbot.schema import ensure_schema
from relais.settings import Settings

# SQLite under concurrent sessions: wait for a lock instead of failing with "database is locked".
SQLITE_CONNECT_ARGS = {"timeout": 30}


def _layer(url: str) -> RelaisDataLayer:
    """The layer, with element files stored in its own database (`chatbot.chainlit_fixes.element_store`)."""
    layer = RelaisDataLayer(conninfo=url, connect_args=dict(SQLITE_CONNECT_ARGS) if is_sqlite(url) else None)
    layer.storage_provider = DatabaseBlobStore(layer.engine)
    if is_sqlite(url):
        sqlite_commits_without_fsync(layer.engine)
    return layer


def sqlite_commits_without_fsync(engine: AsyncEngine) -> None:
    """`PRAGMA synchronous=NORMAL` on every connection: in WAL mode a commit then appends to the
    log without waiting for the disk (~5 ms an fsync here, paid by every step Chainlit writes,
    one writer at a time); the log is synced at checkpoints. A killed app loses nothing
    committed; only a power cut or OS crash may lose the last commits (SQLite's advice for WAL)."""
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()


async def create_data_layer(settings: Settings) -> RelaisDataLayer:
    """The data layer for `settings`, with its schema in place."""
    url = settings.chainlit_db_url
    if is_sqlite(url):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    layer = _layer(url)
    await ensure_schema(layer.engine)
    return layer


def create_data_layer_sync(settings: Settings) -> RelaisDataLayer:
    """For Chainlit's synchronous `@cl.data_layer` hook: the schema is ensured in a worker
    thread with its own event loop and engine, then the layer is built for Chainlit's loop."""
    url = settings.chainlit_db_url
    if is_sqlite(url):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    errors: list[BaseException] = []

    async def _create() -> None:
        engine = create_async_engine(url, connect_args=dict(SQLITE_CONNECT_ARGS) if is_sqlite(url) else {})
        try:
            await ensure_schema(engine)
        finally:
            await engine.dispose()

    def _run() -> None:
        try:
            asyncio.run(_create())
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)

    worker = threading.Thread(target=_run)
    worker.start()
    worker.join()
    if errors:
        raise RuntimeError(f"cannot prepare the chat database ({url.split('://')[0]}): {errors[0]}") from errors[0]
    return _layer(url)
