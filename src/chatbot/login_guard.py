"""Failed-login limits per username and per client address, counted in the chat database.

Why in the database: behind a load balancer every instance must see the same counts, or N
instances would give N times the attempts. The table lives next to Chainlit's (SQLite file by
default, Postgres with `DATABASE_URL`).

Policy, per key (`user:<name>` and `addr:<ip>`): an attempt is counted when it starts (so a burst
of parallel guesses cannot slip between a check and a write); a success gives it back. Past a few
failures each new attempt must wait `backoff * 2^k` seconds after the last one (capped); at the
maximum the key is locked for the lock period. Failures older than the lock period are forgotten.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from chatbot.settings import ChatbotSettings

logger = logging.getLogger(__name__)

DDL = (
    'CREATE TABLE IF NOT EXISTS login_guard ("key" TEXT PRIMARY KEY, "failures" INTEGER NOT NULL, '
    '"last_at" DOUBLE PRECISION NOT NULL, "next_at" DOUBLE PRECISION NOT NULL)'
)
MAX_BACKOFF_S = 60.0


@dataclass(frozen=True)
class Limit:
    """When a key starts waiting between attempts, and when it is locked."""

    backoff_after: int
    max_failures: int


@dataclass
class Refusal(Exception):
    """An attempt refused before the password was looked at."""

    locked: bool  # True: locked for a while; False: too fast, wait `retry_after` seconds
    retry_after: int


async def create_table(engine: AsyncEngine, ddl: str) -> None:
    """CREATE TABLE IF NOT EXISTS, safe when several instances run it at the same moment
    (Postgres may then fail one of them on its catalog's unique index: the table exists)."""
    for attempt in range(3):
        try:
            async with engine.begin() as conn:
                await conn.execute(text(ddl))
            return
        except Exception:
            if attempt == 2:
                raise
            await asyncio.sleep(0.2 * (attempt + 1))


class LoginGuard:
    """Counts attempts in the `login_guard` table of `engine` (shared by every instance)."""

    def __init__(self, engine: AsyncEngine, settings: ChatbotSettings, clock: Callable[[], float] = time.time) -> None:
        self.engine, self.clock = engine, clock
        self.window = settings.relais_login_lock_minutes * 60
        self.backoff = settings.relais_login_backoff_s
        per_user = max(1, settings.relais_login_max_failures)
        per_addr = max(1, settings.relais_login_max_failures_per_address)
        self.limits = {"user": Limit(max(1, per_user // 3), per_user), "addr": Limit(max(1, per_addr // 5), per_addr)}
        self._schema_ready = False
        self._schema_lock = asyncio.Lock()

    async def ensure_schema(self) -> None:
        async with self._schema_lock:
            if not self._schema_ready:
                await create_table(self.engine, DDL)
                self._schema_ready = True

    @staticmethod
    def keys(username: str, address: str | None) -> dict[str, str]:
        keys = {"user": "user:" + username.strip().lower()}
        if address:
            keys["addr"] = "addr:" + address
        return keys

    def _delay(self, kind: str, failures: int) -> float:
        limit = self.limits[kind]
        if failures >= limit.max_failures:
            return self.window
        if failures < limit.backoff_after:
            return 0.0
        return min(self.backoff * 2 ** (failures - limit.backoff_after), MAX_BACKOFF_S)

    async def _rows(self, conn: AsyncConnection, keys: list[str]) -> dict[str, tuple[int, float, float]]:
        """The keys' rows, locked until commit (the first statement writes, so SQLite takes its
        write lock at once and Postgres rows are locked FOR UPDATE: instances queue, never race)."""
        for key in sorted(keys):
            await conn.execute(
                text('INSERT INTO login_guard ("key", "failures", "last_at", "next_at") VALUES (:k, 0, 0, 0) '
                     'ON CONFLICT ("key") DO NOTHING'), {"k": key})
        lock = "" if conn.dialect.name == "sqlite" else " FOR UPDATE"
        params = {f"k{i}": key for i, key in enumerate(sorted(keys))}
        placeholders = ", ".join(f":{name}" for name in params)
        result = await conn.execute(
            text(f'SELECT "key", "failures", "last_at", "next_at" FROM login_guard WHERE "key" IN ({placeholders}) '
                 f'ORDER BY "key"{lock}'), params)
        return {row[0]: (int(row[1]), float(row[2]), float(row[3])) for row in result}

    async def _write(self, conn: AsyncConnection, key: str, failures: int, last_at: float, next_at: float) -> None:
        await conn.execute(
            text('UPDATE login_guard SET "failures" = :f, "last_at" = :l, "next_at" = :n WHERE "key" = :k'),
            {"f": failures, "l": last_at, "n": next_at, "k": key})

    async def begin_attempt(self, username: str, address: str | None) -> list[str]:
        """Count this attempt, or raise `Refusal` if a key is locked or must still wait.
        Returns the kinds ("user", "addr") this attempt locks if it fails."""
        await self.ensure_schema()
        keys = self.keys(username, address)
        now = self.clock()
        async with self.engine.begin() as conn:
            rows = await self._rows(conn, list(keys.values()))
            refusals = []
            for kind, key in keys.items():
                failures, last_at, next_at = rows[key]
                if now < next_at and last_at >= now - self.window:
                    refusals.append(Refusal(failures >= self.limits[kind].max_failures, int(next_at - now) + 1))
            if refusals:
                raise max(refusals, key=lambda r: (r.locked, r.retry_after))
            locking = []
            for kind, key in keys.items():
                failures, last_at, _ = rows[key]
                failures = 1 if last_at < now - self.window else failures + 1
                await self._write(conn, key, failures, now, now + self._delay(kind, failures))
                if failures == self.limits[kind].max_failures:
                    locking.append(kind)
        return locking

    def log_lock(self, kinds: list[str], username: str, address: str | None, known_user: bool) -> None:
        """A lock, logged once, without secrets."""
        keys = self.keys(username, address)
        for kind in kinds:
            who = f"user {username!r}" if kind == "user" and known_user else _describe(kind, keys[kind])
            logger.warning("login locked for %.0f min: %s after %d failed attempts",
                           self.window / 60, who, self.limits[kind].max_failures)

    async def succeeded(self, username: str, address: str | None) -> None:
        """Give the attempt back: the username starts afresh, the address loses one count and
        its wait (its remaining count still leads to a lock)."""
        keys = self.keys(username, address)
        async with self.engine.begin() as conn:
            rows = await self._rows(conn, list(keys.values()))
            await conn.execute(text('DELETE FROM login_guard WHERE "key" = :k'), {"k": keys["user"]})
            if "addr" in keys:
                failures, last_at, _ = rows[keys["addr"]]
                # a right password proves someone legitimate there: no wait, but the count stands
                await self._write(conn, keys["addr"], max(0, failures - 1), last_at, 0.0)


def _describe(kind: str, key: str) -> str:
    """What a log line may say about a key: an address as is, a username as a short digest
    (people type passwords into the username field)."""
    if kind == "addr":
        return "client address " + key.split(":", 1)[1]
    return "username #" + hashlib.sha256(key.encode()).hexdigest()[:10]
