"""A small table of its own on an async SQLAlchemy engine (SQLite or Postgres), created on first use.

The engine is made lazily in the running event loop (an async pool cannot be shared across
loops) and the DDL runs once per engine; a SQLite file's folder is created first. Simultaneous
first uses are safe: in one process a lock lets one of them run the DDL; across processes on
Postgres, `CREATE TABLE IF NOT EXISTS` racing another instance's fails on the catalog's unique index
(`pg_type_typname_nsp_index`) or with "already exists", and is run once more, now a no-op.

On a SQLite file the table is written as the chat database is (`chatbot.persistence`): WAL, commits
without an fsync (`synchronous=NORMAL`: a killed process loses nothing committed), and this
process's writes (`begin()`) one at a time. Measured under the 50-conversation load
(`benchmarks/bench_load.py`): the agent service's route inserts, each its own pooled connection on a
rollback journal with an fsync per commit, spent 8.2 s in all in `INSERT agent_routes`, waiting for
SQLite's lock in its busy handler (sleeps of up to 100 ms while the lock is free).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from sqlalchemy import event, make_url, text
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from relais.retry import RetryPolicy

SQLITE_TIMEOUT_S = 30  # another process holding the write lock is waited for, not an error


def _locked(exc: BaseException) -> bool:
    return isinstance(exc, OperationalError) and "locked" in str(exc).lower()


# the project's retry policy (`relais.retry`): waits of 0.02 s doubling up to 0.5 s, ~30 s in all
_WAL_SWITCH = RetryPolicy(max_attempts=SQLITE_TIMEOUT_S * 2 + 5, multiplier=0.02, wait_min=0.0, wait_max=0.5,
                          retry_on=_locked)


def _sqlite_commits_without_fsync(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


async def switch_to_wal(engine: AsyncEngine) -> None:
    """Put the SQLite file behind `engine` in WAL mode. The switch takes its lock without SQLite's
    busy handler: while another connection writes the file it fails at once with "database is
    locked" (seen in CI: six instances' first uses of one file), so it is tried again until the
    SQLite timeout."""
    async for attempt in _WAL_SWITCH.asynchronous():
        with attempt:
            async with engine.connect() as conn:
                await conn.exec_driver_sql("PRAGMA journal_mode=WAL")


class LazyTable:
    """`await table.engine()` → the engine with `ddl` applied; `aclose()` disposes of it."""

    def __init__(self, url: str, ddl: str) -> None:
        self.url = url
        self.ddl = ddl
        self._engine: AsyncEngine | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = False
        self._creating: asyncio.Lock | None = None
        self._writer: asyncio.Lock | None = None  # SQLite: this process's writes, one at a time
        self.sqlite = make_url(url).get_backend_name() == "sqlite"

    async def engine(self) -> AsyncEngine:
        loop = asyncio.get_running_loop()
        if self._engine is None or self._loop is not loop:
            self._engine, self._loop, self._ready = self._new_engine(), loop, False
            self._creating, self._writer = asyncio.Lock(), asyncio.Lock()
        engine = self._engine
        if not self._ready:
            assert self._creating is not None
            async with self._creating:
                if not self._ready:
                    await self._create(engine)
                    self._ready = True
        return engine

    def _new_engine(self) -> AsyncEngine:
        if not self.sqlite:
            return create_async_engine(self.url)
        database = make_url(self.url).database
        if database not in (None, "", ":memory:"):
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(self.url, connect_args={"timeout": SQLITE_TIMEOUT_S})
        event.listen(engine.sync_engine, "connect", _sqlite_commits_without_fsync)
        return engine

    @contextlib.asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncConnection]:
        """A write transaction; on SQLite this process's writers take turns (first come, first served)
        instead of each pooled connection sleeping in SQLite's busy handler."""
        engine = await self.engine()
        if not self.sqlite:
            async with engine.begin() as conn:
                yield conn
            return
        assert self._writer is not None
        async with self._writer, engine.begin() as conn:
            yield conn

    async def _create(self, engine: AsyncEngine) -> None:
        if self.sqlite and make_url(self.url).database not in (None, "", ":memory:"):
            await switch_to_wal(engine)  # readers never wait for the writer
        try:
            async with engine.begin() as conn:
                await conn.execute(text(self.ddl))
        except (IntegrityError, ProgrammingError):  # another instance created it at the same moment
            async with engine.begin() as conn:
                await conn.execute(text(self.ddl))

    async def aclose(self) -> None:
        engine, self._engine = self._engine, None
        if engine is not None:
            try:
                await engine.dispose()
            except (RuntimeError, OSError):
                pass


__all__ = ["LazyTable", "switch_to_wal"]
