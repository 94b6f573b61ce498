"""The load bench's in-process profiler: SQLite statements counted per database and kind (also
through SQLAlchemy), and where turn tasks wait (into the async generators they iterate)."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import threading
import time
from pathlib import Path

from sqlalchemy import create_engine, text

from benchmarks import app_profile
from benchmarks.app_profile import Sampler, SqliteCounter, format_summary, signature


def test_statement_signatures_name_the_verb_and_the_table() -> None:
    assert signature('UPDATE "threads" SET "name" = :n') == "UPDATE threads"
    assert signature('INSERT INTO steps ("id") VALUES (:id) ON CONFLICT (id) DO UPDATE SET x = 1') == "INSERT steps"
    assert signature('SELECT "metadata" FROM threads WHERE "id" = :id') == "SELECT threads"
    assert signature("CREATE TABLE IF NOT EXISTS routes (k TEXT)") == "CREATE routes"
    assert signature("  BEGIN") == "BEGIN"


def test_statements_are_counted_per_database_also_through_sqlalchemy(tmp_path: Path, monkeypatch) -> None:
    counter = SqliteCounter()
    monkeypatch.setattr(sqlite3, "connect", sqlite3.connect)
    monkeypatch.setattr(sqlite3.dbapi2, "connect", sqlite3.dbapi2.connect)
    counter.install()
    conn = sqlite3.connect(tmp_path / "a.db")
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.commit()
    conn.close()
    engine = create_engine(f"sqlite:///{tmp_path / 'b.db'}")
    with engine.begin() as sa:
        sa.execute(text("CREATE TABLE u (x)"))
        sa.execute(text("UPDATE u SET x = 2"))
    engine.dispose()
    counts = counter.summary()
    assert counts["a.db"]["INSERT t"][0] == 1 and counts["a.db"]["commit()"][0] == 1
    assert counts["b.db"]["UPDATE u"][0] == 1
    lines = format_summary({"threads": {"seconds": 1, "ticks": 1, "kinds": {}}, "sqlite": counts}, turns=1)
    assert any("sqlite a.db: per turn" in line and "1.0 writes" in line for line in lines)


async def _stream() -> object:
    await asyncio.sleep(0.3)
    yield 1


async def _turn() -> None:
    async for _ in _stream():
        pass


def test_turn_tasks_are_followed_into_the_async_generators_they_iterate(monkeypatch) -> None:
    monkeypatch.setattr(app_profile, "TURN_MARK", "test_app_profile.py:_turn")
    sampler = Sampler()
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            sampler.sample_turns()
            time.sleep(0.01)

    thread = threading.Thread(target=sample)
    thread.start()
    try:
        asyncio.run(_turn())
    finally:
        stop.set()
        thread.join()
    waits = dict(sampler.summary()["turn tasks wait at"])
    assert any("test_app_profile.py:_stream -> " in name and "tasks.py:sleep" in name for name in waits), waits


def test_a_running_task_is_not_followed_into_what_it_awaits() -> None:
    # reading a running coroutine's `cr_await` from the sampler thread segfaulted CPython 3.11
    async def inner() -> list[str]:
        return app_profile.await_chain(asyncio.current_task())

    async def outer() -> list[str]:
        return await inner()

    chain = asyncio.run(outer())
    assert len(chain) == 1 and chain[0].endswith(":outer")


def test_the_sampler_never_imports_asyncio_itself(monkeypatch) -> None:
    """Before the app has loaded asyncio there is no task to read, and the sampler's thread must not
    import it (its import raced the app's own: 'partially initialized module asyncio.tasks')."""
    monkeypatch.delitem(sys.modules, "asyncio.tasks")
    assert app_profile.live_tasks() == []
    assert "asyncio.tasks" not in sys.modules


def test_live_tasks_reads_the_running_tasks() -> None:
    async def main() -> int:
        waiter = asyncio.ensure_future(asyncio.sleep(1))
        found = len([t for t in app_profile.live_tasks() if t is waiter])
        waiter.cancel()
        return found

    assert asyncio.run(main()) == 1
