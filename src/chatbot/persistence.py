"""Chainlit persistence: the SQLAlchemy data layer on SQLite (default) or Postgres, and the
thread's orchestrator mode stored in its metadata.

Chainlit ships no schema for its SQLAlchemy layer, so the DDL lives here (Postgres types from
Chainlit's docs; TEXT stand-ins on SQLite), plus a `blobs` table for element files
(`chatbot.blobs`). The schema is created on first start.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from collections import OrderedDict
from typing import Any

from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from relais.settings import Settings

logger = logging.getLogger(__name__)

from assistant.modes import ALTER, MODE_KEY, NORMAL

_POSTGRES_DDL = """
CREATE TABLE IF NOT EXISTS users (
    "id" UUID PRIMARY KEY, "identifier" TEXT NOT NULL UNIQUE, "metadata" JSONB NOT NULL,
    "createdAt" TEXT);
CREATE TABLE IF NOT EXISTS threads (
    "id" UUID PRIMARY KEY, "createdAt" TEXT, "name" TEXT, "userId" UUID, "userIdentifier" TEXT,
    "tags" TEXT[], "metadata" JSONB,
    FOREIGN KEY ("userId") REFERENCES users("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS steps (
    "id" UUID PRIMARY KEY, "name" TEXT NOT NULL, "type" TEXT NOT NULL, "threadId" UUID NOT NULL,
    "parentId" UUID, "streaming" BOOLEAN NOT NULL, "waitForAnswer" BOOLEAN, "isError" BOOLEAN,
    "metadata" JSONB, "tags" TEXT[], "input" TEXT, "output" TEXT, "createdAt" TEXT,
    "command" TEXT, "start" TEXT, "end" TEXT, "generation" JSONB, "showInput" TEXT,
    "language" TEXT, "indent" INT, "defaultOpen" BOOLEAN, "autoCollapse" BOOLEAN, "modes" JSONB,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS elements (
    "id" UUID PRIMARY KEY, "threadId" UUID, "type" TEXT, "url" TEXT, "chainlitKey" TEXT,
    "name" TEXT NOT NULL, "display" TEXT, "objectKey" TEXT, "size" TEXT, "page" INT,
    "language" TEXT, "forId" UUID, "mime" TEXT, "props" JSONB, "autoPlay" BOOLEAN,
    "playerConfig" JSONB,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS blobs (
    "objectKey" TEXT PRIMARY KEY, "mime" TEXT, "data" BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS feedbacks (
    "id" UUID PRIMARY KEY, "forId" UUID NOT NULL, "threadId" UUID NOT NULL, "value" INT NOT NULL,
    "comment" TEXT,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
"""


def _sqlite_ddl() -> str:
    """The Postgres DDL with SQLite-friendly types (UUID/JSONB/arrays stored as TEXT)."""
    ddl = _POSTGRES_DDL.replace(" BYTEA", " BLOB")
    for pg_type in ("UUID", "JSONB", "TEXT[]"):
        ddl = ddl.replace(f" {pg_type}", " TEXT")
    return ddl


KNOWN_THREADS_MAX = 10_000  # thread ids remembered as existing (LRU)
_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def is_write(query: str) -> bool:
    """A statement that takes SQLite's write lock (the data layer's own queries)."""
    words = query.lstrip().split(None, 1)
    return bool(words) and words[0].upper() in _WRITES


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


class RelaisDataLayer(SQLAlchemyDataLayer):
    """Chainlit's SQLAlchemy layer, made to work on SQLite too.

    SQLite cannot bind lists or dicts (Chainlit issue #2528: tags from chat profiles); they
    are JSON-encoded here, and JSON text columns are decoded back on read.

    SQLite has one writer at a time. Chainlit writes every step from its own task, so with 16
    conversations answering at once a dozen pooled connections waited on the file lock in
    SQLite's busy handler, which sleeps up to 100 ms between tries while the lock is free:
    step and thread writes took up to 5 s and held the pool's connections (measured with
    `benchmarks/bench_app_answers.py`). This process's writes therefore take turns on an
    asyncio lock (first come, first served); reads are not held (WAL), and other processes
    sharing the file still wait through the busy timeout.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Threads this process saw in the database (most recent last): Chainlit reads a step's
        # thread before every step it writes; remembering it spares one query per step.
        self._known_threads: OrderedDict[str, bool] = OrderedDict()
        self._sqlite_writer: asyncio.Lock | None = None

    async def execute_sql(self, query: str, parameters: dict) -> list[dict[str, Any]] | int | None:
        if not is_sqlite(self._conninfo):
            return await super().execute_sql(query, parameters)
        parameters = {
            key: json.dumps(value) if isinstance(value, (list, dict)) else value
            for key, value in parameters.items()
        }
        if not is_write(query):
            return await super().execute_sql(query, parameters)  # WAL: readers never wait for the writer
        if self._sqlite_writer is None:
            self._sqlite_writer = asyncio.Lock()
        async with self._sqlite_writer:
            return await super().execute_sql(query, parameters)

    async def upsert_feedback(self, feedback: Any) -> str:
        """One thumb per message, filed under the message's own thread.

        Chainlit inserts a new row whenever the browser does not send the previous id, and a
        message with two feedback rows comes back twice on resume (the steps are LEFT JOINed
        with feedbacks); an id sent by the client could also name another message's row. So the
        row is found by message id, and the thread is read from the message itself.
        """
        import uuid

        rows = await self.execute_sql('SELECT "id" FROM feedbacks WHERE "forId" = :for_id', {"for_id": feedback.forId})
        step = await self.execute_sql('SELECT "threadId" FROM steps WHERE "id" = :id', {"id": feedback.forId})
        if not isinstance(step, list) or not step:
            raise ValueError("feedback for an unknown message")
        feedback.threadId = str(step[0]["threadId"])
        feedback.id = str(rows[0]["id"]) if isinstance(rows, list) and rows else str(uuid.uuid4())
        if feedback.comment is not None:
            feedback.comment = feedback.comment[:4000]
        return await super().upsert_feedback(feedback)

    async def update_thread(  # type: ignore[override]
        self,
        thread_id: str,
        name: str | None = None,
        user_id: str | None = None,
        metadata: dict | None = None,
        tags: list[str] | None = None,
    ) -> None:
        """Chainlit's update, without losing metadata written meanwhile.

        Chainlit reads the thread's metadata, merges and writes it all back, even when only the
        name changes: a rename racing a metadata write (the title task against the profile or
        ALTER mode being remembered) put the old metadata back. Here an update without metadata
        leaves the column alone, and merges in one process run one at a time per thread."""
        only_ensure = metadata is None and name is None and user_id is None and tags is None
        if only_ensure and self._known_threads.get(thread_id):
            return  # Chainlit calls this before every step it writes: the thread is already there
        async with _thread_write_lock(thread_id):
            if only_ensure:
                await super().update_thread(thread_id)  # reads it, inserts it if missing
                self._remember_thread(thread_id)
                return
            if metadata is None and (name is not None or user_id is not None or tags is not None):
                exists = await self.execute_sql('SELECT 1 AS "found" FROM threads WHERE "id" = :id', {"id": thread_id})
                if isinstance(exists, list) and exists:
                    await self._update_columns(thread_id, name=name, user_id=user_id, tags=tags)
                    return
            await super().update_thread(thread_id, name=name, user_id=user_id, metadata=metadata, tags=tags)

    def _remember_thread(self, thread_id: str) -> None:
        known = self._known_threads
        known[thread_id] = True
        known.move_to_end(thread_id)
        while len(known) > KNOWN_THREADS_MAX:
            known.popitem(last=False)

    async def delete_thread(self, thread_id: str) -> None:
        self._known_threads.pop(thread_id, None)
        await super().delete_thread(thread_id)

    async def _update_columns(self, thread_id: str, *, name: str | None, user_id: str | None,
                              tags: list[str] | None) -> None:
        values: dict[str, Any] = {"name": name, "userId": user_id, "tags": tags}
        if user_id is not None:
            values["userIdentifier"] = await self._get_user_identifer_by_id(user_id)
        values = {key: value for key, value in values.items() if value is not None}
        assignments = ", ".join(f'"{key}" = :{key}' for key in values)
        await self.execute_sql(f'UPDATE threads SET {assignments} WHERE "id" = :id', {**values, "id": thread_id})

    async def get_all_user_threads(self, user_id: str | None = None, thread_id: str | None = None):  # type: ignore[override]
        threads = await super().get_all_user_threads(user_id=user_id, thread_id=thread_id)
        for thread in threads or []:
            thread["metadata"] = parse_metadata(thread.get("metadata"))
            for step in thread.get("steps") or []:  # the page reads e.g. a step's avatarName from it:
                step["metadata"] = parse_metadata(step.get("metadata"))  # a JSON string showed a grey avatar
            tags = thread.get("tags")
            if isinstance(tags, str):
                try:
                    thread["tags"] = json.loads(tags)
                except json.JSONDecodeError:
                    thread["tags"] = [tags]
        return threads


_thread_write_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()


def _thread_write_lock(thread_id: str) -> asyncio.Lock:
    lock = _thread_write_locks.get(thread_id)
    if lock is None:
        lock = _thread_write_locks[thread_id] = asyncio.Lock()
    return lock


def parse_metadata(raw: Any) -> dict[str, Any]:
    """Thread metadata as a dict, whatever the backend returned (SQLite gives a JSON string)."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw:
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}
    return {}


async def ensure_schema(engine: AsyncEngine) -> None:
    """Create Chainlit's tables if they are missing (idempotent)."""
    ddl = _sqlite_ddl() if engine.url.get_backend_name() == "sqlite" else _POSTGRES_DDL
    if engine.url.get_backend_name() == "sqlite":  # readers never block the writer
        async with engine.connect() as conn:
            await conn.exec_driver_sql("PRAGMA journal_mode=WAL")
    async with engine.begin() as conn:
        for statement in filter(None, (s.strip() for s in ddl.split(";"))):
            await conn.execute(text(statement))
        if engine.url.get_backend_name() != "sqlite":
            # Older databases created from Chainlit's docs lack the newest step columns.
            for column, kind in (("autoCollapse", "BOOLEAN"), ("modes", "JSONB")):
                await conn.execute(text(f'ALTER TABLE steps ADD COLUMN IF NOT EXISTS "{column}" {kind}'))


# SQLite under concurrent sessions: wait for a lock instead of failing with "database is locked".
SQLITE_CONNECT_ARGS = {"timeout": 30}


def _layer(url: str) -> RelaisDataLayer:
    """The layer, with element files stored in its own database (`chatbot.blobs`)."""
    from chatbot.blobs import DatabaseBlobStore

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
    from sqlalchemy import event

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


# --- the orchestrator's mode, one-way, in the thread's metadata -----------------------------
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


def create_data_layer_sync(settings: Settings) -> RelaisDataLayer:
    """For Chainlit's synchronous `@cl.data_layer` hook: the schema is ensured in a worker
    thread with its own event loop and engine, then the layer is built for Chainlit's loop."""
    import asyncio
    import threading

    from sqlalchemy.ext.asyncio import create_async_engine

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
