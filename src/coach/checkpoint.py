"""Where coach threads live between turns and restarts: one async context manager, three backends.

- a file path (default `settings.checkpoint_target`, i.e. `<data dir>/checkpoints.db`) →
  `AsyncSqliteSaver`, the parent folder created first;
- a `postgresql://` / `postgres://` URL → `AsyncPostgresSaver`, tables created by `.setup()`;
- `":memory:"` → `InMemorySaver` (tests, throw-away demos).

Open it inside the event loop that will use it (an app lifespan, `asyncio.run`), once per
process: the async savers hold a connection bound to that loop.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from relais.settings import Settings, get_settings

MEMORY = ":memory:"


def describe_target(target: str) -> str:
    """A log-safe label for a checkpoint target (never the Postgres password)."""
    if target == MEMORY:
        return "memory"
    if _is_postgres(target):
        parts = urlsplit(target)
        return f"postgres://{parts.hostname or ''}{':' + str(parts.port) if parts.port else ''}{parts.path}"
    return f"sqlite:{target}"


def _is_postgres(target: str) -> bool:
    return target.startswith(("postgresql://", "postgres://", "postgresql+"))


def _sqlite_path(target: str) -> Path:
    for prefix in ("sqlite+aiosqlite:///", "sqlite:///", "sqlite://", "file:"):
        if target.startswith(prefix):
            target = target[len(prefix) :]
            break
    return Path(target).expanduser()


_SETUP_LOCK = 0x52454C41  # Postgres advisory lock key ("RELA") held while migrating


async def _setup_serialised(saver: BaseCheckpointSaver, url: str) -> None:
    """Run LangGraph's migrations one process at a time: replicas started together deadlocked on
    them (measured: 3 agent services starting at once on a fresh database)."""
    # lazy: Postgres only; psycopg costs 1.0-1.3 s on `import coach.service` (machine loaded)
    import psycopg

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as lock:
        await lock.execute("SELECT pg_advisory_lock(%s)", (_SETUP_LOCK,))
        try:
            await saver.setup()  # type: ignore[attr-defined]
        finally:
            await lock.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK,))


class QuickSetupSqliteSaver(AsyncSqliteSaver):
    """LangGraph's async SQLite saver, without a lock taken to learn that it is set up.

    Its `setup()` runs before every read and write and takes the saver's one lock just to check
    `is_setup`, so under the 50-conversation load (`benchmarks/bench_load.py`) each checkpoint
    read queued twice on that lock behind the other threads' reads and writes: 19 % of a coach
    turn's time was spent waiting there in `setup`. Once set up, the check needs no lock."""

    async def setup(self) -> None:
        if self.is_setup:
            return
        await super().setup()


@contextlib.asynccontextmanager
async def open_checkpointer(
    target: str | None = None, settings: Settings | None = None
) -> AsyncIterator[BaseCheckpointSaver]:
    """Yield a ready checkpointer for `target` (default: the settings' checkpoint target)."""
    target = target or (settings or get_settings()).checkpoint_target
    if target == MEMORY:
        yield InMemorySaver()
        return
    if _is_postgres(target):
        # lazy: Postgres only; a SQLite deployment never loads psycopg (+0.7-1.3 s on `import coach.service`)
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        url = target.replace("postgresql+asyncpg://", "postgresql://").replace(
            "postgresql+psycopg://", "postgresql://"
        )
        async with AsyncPostgresSaver.from_conn_string(url) as saver:
            await _setup_serialised(saver, url)
            yield saver
        return
    path = _sqlite_path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    async with QuickSetupSqliteSaver.from_conn_string(str(path)) as saver:
        await saver.setup()  # turns on WAL
        # WAL + synchronous=NORMAL (SQLite's advice for WAL): a commit survives a killed process,
        # only a power cut may lose the last ones; FULL fsyncs every checkpoint write
        await saver.conn.execute("PRAGMA synchronous=NORMAL")
        yield saver
