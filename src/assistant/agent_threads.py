"""Which LangGraph thread carries each Relais thread, and for whom: a table in the chat database.

`agent_threads(relais_thread PK, owner, agent_thread, assistant, created_at)`, created on first
use (SQLite or Postgres, the database Chainlit's data layer uses). The first writer wins
(`INSERT ... ON CONFLICT DO NOTHING`): two instances racing on one thread read back the same row,
and a thread claimed by one user is refused to any other.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from relais.sql_table import LazyTable

_DDL = (
    "CREATE TABLE IF NOT EXISTS agent_threads (relais_thread TEXT PRIMARY KEY, owner TEXT NOT NULL, "
    "agent_thread TEXT NOT NULL, assistant TEXT NOT NULL, created_at TEXT NOT NULL)"
)


class ThreadOwnedByAnother(PermissionError):
    """The Relais thread is mapped for another user."""


class AgentThreads:
    """The mapping, on its own small engine (lazily created in the running loop)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._table = LazyTable(url, _DDL)

    async def _db(self) -> AsyncEngine:
        return await self._table.engine()

    async def get(self, relais_thread: str, owner: str) -> str | None:
        """The agent thread of a Relais thread (None: not mapped yet); refused for another owner."""
        engine = await self._db()
        async with engine.connect() as conn:
            row = (await conn.execute(
                text("SELECT owner, agent_thread FROM agent_threads WHERE relais_thread = :t"), {"t": relais_thread}
            )).first()
        if row is None:
            return None
        if row.owner != owner:
            raise ThreadOwnedByAnother(relais_thread)
        return str(row.agent_thread)

    async def claim(self, relais_thread: str, owner: str, agent_thread: str, assistant: str) -> str:
        """Map the thread unless it already is; the winning row's agent thread (owner checked)."""
        async with self._table.begin() as conn:
            await conn.execute(
                text("INSERT INTO agent_threads (relais_thread, owner, agent_thread, assistant, created_at) "
                     "VALUES (:t, :o, :a, :s, :c) ON CONFLICT (relais_thread) DO NOTHING"),
                {"t": relais_thread, "o": owner, "a": agent_thread, "s": assistant,
                 "c": datetime.now(UTC).isoformat()},
            )
        found = await self.get(relais_thread, owner)
        assert found is not None
        return found

    async def aclose(self) -> None:
        await self._table.aclose()
