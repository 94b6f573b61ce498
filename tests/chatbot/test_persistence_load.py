"""The SQLite data layer under many simultaneous conversations (issue 19, item 4): this process's
writes take turns instead of fighting over the file lock, a step's thread is read once, and
commits do not wait for the disk. A real SQLite file in the test's data folder."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from chainlit.user import User

from chatbot.chainlit_fixes.data_layer import RelaisDataLayer, is_write
from chatbot.persistence import create_data_layer
from chatbot.schema import ensure_schema
from relais.settings import get_settings


class CountingLayer(RelaisDataLayer):
    """The real layer, recording the statements it runs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queries: list[str] = []

    async def execute_sql(self, query: str, parameters: dict) -> Any:
        self.queries.append(" ".join(query.split()))
        return await super().execute_sql(query, parameters)


def sqlite_url(folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{folder / 'chat.db'}"


def test_statements_that_take_the_write_lock() -> None:
    assert is_write("INSERT INTO steps (id) VALUES (:id)")
    assert is_write("\n   update threads SET name = :n")
    assert is_write("DELETE FROM feedbacks WHERE 1")
    assert not is_write('SELECT "metadata" FROM threads WHERE "id" = :id')
    assert not is_write("")


async def test_simultaneous_writes_all_land_even_without_a_busy_wait(isolated_settings: Path) -> None:
    """40 threads created at once on a database that refuses to wait for its lock (timeout 0):
    without turns, concurrent pooled connections hit "database is locked" and the writes are
    lost (Chainlit's execute_sql logs and returns None)."""
    layer = RelaisDataLayer(conninfo=sqlite_url(isolated_settings), connect_args={"timeout": 0})
    try:
        await ensure_schema(layer.engine)
        ids = [str(uuid.uuid4()) for _ in range(40)]
        results = await asyncio.gather(*(
            layer.execute_sql('INSERT INTO threads ("id", "name", "metadata") VALUES (:id, :name, :metadata)',
                              {"id": i, "name": f"thread {n}", "metadata": {"n": n}})
            for n, i in enumerate(ids)))
        assert results == [1] * len(ids)
        rows = await layer.execute_sql("SELECT count(*) AS n FROM threads", {})
        assert rows == [{"n": len(ids)}]
    finally:
        await layer.engine.dispose()


async def test_a_steps_thread_is_read_once_then_remembered(isolated_settings: Path) -> None:
    """Chainlit ensures the thread before every step it writes (`update_thread(id)`)."""
    layer = CountingLayer(conninfo=sqlite_url(isolated_settings))
    try:
        await ensure_schema(layer.engine)
        thread_id = str(uuid.uuid4())
        for _ in range(5):
            await layer.update_thread(thread_id)
        reads = [q for q in layer.queries if q.startswith('SELECT "metadata" FROM threads')]
        assert len(reads) == 1
        assert await layer.execute_sql('SELECT "id" FROM threads', {}) == [{"id": thread_id}]

        await layer.delete_thread(thread_id)  # forgotten with the thread: the next step recreates it
        await layer.update_thread(thread_id)
        assert await layer.execute_sql('SELECT "id" FROM threads', {}) == [{"id": thread_id}]
    finally:
        await layer.engine.dispose()


async def test_updates_with_content_still_reach_a_remembered_thread(isolated_settings: Path) -> None:
    layer = await create_data_layer(get_settings())
    try:
        user = await layer.create_user(User(identifier=f"dora-{uuid.uuid4().hex[:8]}"))
        thread_id = str(uuid.uuid4())
        await layer.update_thread(thread_id)  # remembered
        await layer.update_thread(thread_id, name="09:41 UTC · How much do students pay?", user_id=user.id)
        await layer.update_thread(thread_id, metadata={"chat_profile": "Assistant"})
        thread = await layer.get_thread(thread_id)
        assert thread is not None and thread["name"].endswith("students pay?")
        assert thread["metadata"] == {"chat_profile": "Assistant"}
    finally:
        await layer.engine.dispose()


async def test_sqlite_commits_do_not_wait_for_the_disk(isolated_settings: Path) -> None:
    layer = await create_data_layer(get_settings())
    try:
        assert await layer.execute_sql("PRAGMA synchronous", {}) == [{"synchronous": 1}]  # NORMAL (FULL = 2)
        assert await layer.execute_sql("PRAGMA journal_mode", {}) == [{"journal_mode": "wal"}]
    finally:
        await layer.engine.dispose()


async def test_simultaneous_writes_are_committed_together_and_a_failing_one_fails_alone(isolated_settings: Path) -> None:
    """One writer thread (`sqlite_writer`): the writes waiting when a transaction starts share its
    commit, instead of each holding the file's lock across its own hand-offs; a statement that
    breaks a constraint gets None (as Chainlit's `execute_sql` on an error) and the rest land."""
    layer = RelaisDataLayer(conninfo=sqlite_url(isolated_settings))
    try:
        await ensure_schema(layer.engine)
        ids = [str(uuid.uuid4()) for _ in range(30)]
        insert = 'INSERT INTO threads ("id", "name") VALUES (:id, :name)'
        writes = [layer.execute_sql(insert, {"id": i, "name": f"thread {n}"}) for n, i in enumerate(ids)]
        writes.insert(15, layer.execute_sql(insert, {"id": ids[0], "name": "the same id again"}))
        results = await asyncio.gather(*writes)
        assert results.count(None) == 1 and results.count(1) == len(ids)
        assert layer.write_groups is not None and layer.write_groups < len(writes)
        rows = await layer.execute_sql("SELECT count(*) AS n FROM threads", {})
        assert rows == [{"n": len(ids)}]
        assert await layer.execute_sql('SELECT "name" FROM threads WHERE "id" = :id', {"id": ids[0]}) == [
            {"name": "thread 0"}]
    finally:
        await layer.close()
