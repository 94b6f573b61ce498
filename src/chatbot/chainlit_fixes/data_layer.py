"""Chainlit's SQLAlchemy data layer, repaired: SQLite binds (#2528), one writer at a time,
one thumb per message, metadata merges that do not lose concurrent writes, JSON read back.

Each repair is described on the method that makes it; `tests/chatbot/test_persistence*.py`
fail without them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from sqlalchemy import make_url

from chatbot.chainlit_fixes.sqlite_writer import SqliteWriter

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
    `benchmarks/bench_app_answers.py`). This process's writes therefore go to one writer
    thread, which commits the writes waiting together (`sqlite_writer`); reads are not held
    (WAL), and other processes sharing the file still wait through the busy timeout.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Threads this process saw in the database (most recent last): Chainlit reads a step's
        # thread before every step it writes; remembering it spares one query per step.
        self._known_threads: OrderedDict[str, bool] = OrderedDict()
        self._writer: SqliteWriter | None = None  # SQLite: this process's writes, grouped (sqlite_writer)
        self._step_writes: set[asyncio.Task[Any]] = set()  # Chainlit's step writes still running

    async def execute_sql(self, query: str, parameters: dict) -> list[dict[str, Any]] | int | None:
        if not is_sqlite(self._conninfo):
            return await super().execute_sql(query, parameters)
        parameters = {
            key: json.dumps(value) if isinstance(value, (list, dict)) else value
            for key, value in parameters.items()
        }
        if not is_write(query):
            return await super().execute_sql(query, parameters)  # WAL: readers never wait for the writer
        if self._writer is None:
            database = make_url(self._conninfo).database
            if not database or database == ":memory:":  # another connection would be another database
                return await super().execute_sql(query, parameters)
            self._writer = SqliteWriter(database)
        return await self._writer.execute(query, parameters)

    @property
    def write_groups(self) -> int | None:
        """Transactions the SQLite writer committed (None: no writer, e.g. Postgres)."""
        return None if self._writer is None else self._writer.groups

    async def close(self) -> None:
        if self._writer is not None:
            await asyncio.to_thread(self._writer.close)
        await super().close()

    async def create_step(self, step_dict: Any) -> None:
        async with self._tracked_step_write():
            await super().create_step(step_dict)

    async def update_step(self, step_dict: Any) -> None:
        async with self._tracked_step_write():
            await super().update_step(step_dict)

    async def delete_step(self, step_id: str) -> None:
        async with self._tracked_step_write():
            await super().delete_step(step_id)

    @contextlib.asynccontextmanager
    async def _tracked_step_write(self) -> AsyncIterator[None]:
        task = asyncio.current_task()
        if task is not None:
            self._step_writes.add(task)
        try:
            yield
        finally:
            self._step_writes.discard(task)  # type: ignore[arg-type]

    async def steps_written(self) -> None:
        """Wait for the step writes already started (Chainlit fires each from its own task and
        never awaits it): a thread read afterwards holds every message sent before the call."""
        await asyncio.sleep(0)  # writes created just before this call take their first step
        running = {task for task in self._step_writes if task is not asyncio.current_task()}
        if running:
            await asyncio.wait(running)

    async def upsert_feedback(self, feedback: Any) -> str:
        """One thumb per message, filed under the message's own thread.

        Chainlit inserts a new row whenever the browser does not send the previous id, and a
        message with two feedback rows comes back twice on resume (the steps are LEFT JOINed
        with feedbacks); an id sent by the client could also name another message's row. So the
        row is found by message id, and the thread is read from the message itself.
        """
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
