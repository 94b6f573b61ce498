"""A small table created on first use: simultaneous first uses (in one process, and from several
instances, each with its own engine) all get the table, none an error (on Postgres a racing
`CREATE TABLE IF NOT EXISTS` fails on the catalog's unique index: the scale load test saw 10 of 50
conversations answered 500 that way)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import uuid
from pathlib import Path

from sqlalchemy import text

from relais.sql_table import LazyTable


def _url(backend: str, tmp_path: Path) -> str:
    if backend == "postgres":
        return os.environ["DATABASE_URL"].replace("postgresql://", "postgresql+asyncpg://", 1)
    return f"sqlite+aiosqlite:///{tmp_path / 'small.db'}"


async def test_simultaneous_first_uses_on_several_instances_all_get_the_table(backend: str, tmp_path: Path) -> None:
    name = f"small_{uuid.uuid4().hex[:8]}"
    ddl = f"CREATE TABLE IF NOT EXISTS {name} (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
    instances = [LazyTable(_url(backend, tmp_path), ddl) for _ in range(6)]

    async def first_use(table: LazyTable, n: int) -> int:
        engine = await table.engine()
        async with engine.begin() as conn:
            await conn.execute(text(f"INSERT INTO {name} (key, value) VALUES (:k, 'v')"), {"k": f"k{n}"})
        return n

    try:
        # every instance at once, and several requests at once within each instance
        done = await asyncio.gather(*(first_use(table, i * 10 + j) for i, table in enumerate(instances) for j in range(4)))
        assert len(done) == 24
        engine = await instances[0].engine()
        async with engine.begin() as conn:
            assert (await conn.execute(text(f"SELECT COUNT(*) FROM {name}"))).scalar_one() == 24
            await conn.execute(text(f"DROP TABLE {name}"))
    finally:
        for table in instances:
            await table.aclose()


async def test_a_sqlite_table_is_written_in_wal_without_fsync_and_one_writer_at_a_time(tmp_path: Path) -> None:
    """Under load the agent service's route writes each slept in SQLite's busy handler on a
    rollback journal with an fsync per commit; now WAL, `synchronous=NORMAL`, and this process's
    writers take turns (`begin()`)."""
    table = LazyTable(f"sqlite+aiosqlite:///{tmp_path / 'routes.db'}",
                      "CREATE TABLE IF NOT EXISTS routes (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    active, most = 0, 0

    async def write(n: int) -> None:
        nonlocal active, most
        async with table.begin() as conn:
            active += 1
            most = max(most, active)
            await asyncio.sleep(0)  # another writer would enter here without the lock
            await conn.execute(text("INSERT INTO routes (key, value) VALUES (:k, 'v')"), {"k": f"k{n}"})
            active -= 1

    try:
        await asyncio.gather(*(write(n) for n in range(20)))
        assert most == 1
        engine = await table.engine()
        async with engine.connect() as conn:
            assert (await conn.execute(text("SELECT COUNT(*) FROM routes"))).scalar_one() == 20
            assert (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar_one() == "wal"
            assert (await conn.exec_driver_sql("PRAGMA synchronous")).scalar_one() == 1  # NORMAL
    finally:
        await table.aclose()


async def test_a_first_use_waits_for_another_process_writing_the_file(tmp_path: Path) -> None:
    """Switching a file to WAL takes an exclusive lock without SQLite's busy handler: while another
    connection held a write lock, the first use failed at once with "database is locked"."""
    db = tmp_path / "shared.db"
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("CREATE TABLE other (a)")
    other.execute("BEGIN IMMEDIATE")  # another process's write in progress
    other.execute("INSERT INTO other VALUES (1)")
    table = LazyTable(f"sqlite+aiosqlite:///{db}", "CREATE TABLE IF NOT EXISTS mine (key TEXT)")

    async def finish_the_other_write() -> None:
        await asyncio.sleep(0.3)
        other.execute("COMMIT")

    try:
        finishing = asyncio.create_task(finish_the_other_write())
        engine = await table.engine()
        await finishing
        async with engine.connect() as conn:
            assert (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar_one() == "wal"
            assert (await conn.exec_driver_sql("SELECT COUNT(*) FROM other")).scalar_one() == 1
    finally:
        other.close()
        await table.aclose()
