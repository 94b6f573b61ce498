"""A small table of its own on an async SQLAlchemy engine (SQLite or Postgres), created on first use.

The engine is made lazily in the running event loop (an async pool cannot be shared across
loops) and the DDL runs once per engine; a SQLite file's folder is created first. Simultaneous
first uses are safe: in one process a lock lets one of them run the DDL; across processes on
Postgres, `CREATE TABLE IF NOT EXISTS` racing another instance's fails on the catalog's unique index
(`pg_type_typname_nsp_index`) or with "already exists", and is run once more, now a no-op.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import make_url, text
from sqlalchemy.exc import IntegrityError, ProgrammingError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine


class LazyTable:
    """`await table.engine()` → the engine with `ddl` applied; `aclose()` disposes of it."""

    def __init__(self, url: str, ddl: str) -> None:
        self.url = url
        self.ddl = ddl
        self._engine: AsyncEngine | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = False
        self._creating: asyncio.Lock | None = None

    async def engine(self) -> AsyncEngine:
        loop = asyncio.get_running_loop()
        if self._engine is None or self._loop is not loop:
            url = make_url(self.url)
            if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
                Path(url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
            self._engine, self._loop, self._ready = create_async_engine(self.url), loop, False
            self._creating = asyncio.Lock()
        engine = self._engine
        if not self._ready:
            assert self._creating is not None
            async with self._creating:
                if not self._ready:
                    await self._create(engine)
                    self._ready = True
        return engine

    async def _create(self, engine: AsyncEngine) -> None:
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


__all__ = ["LazyTable"]
