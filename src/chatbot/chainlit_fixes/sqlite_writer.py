"""The chat database's writes on SQLite: one thread, one connection, simultaneous writes committed together.

Why: SQLite takes one writer at a time. Through SQLAlchemy's async session each of Chainlit's
writes (a step, a thread, an element) held the file's write lock across four hand-offs between
the event loop and aiosqlite's thread (check out, execute, commit, reset), and the writes of
simultaneous turns queued behind one another for it. Under the 50-conversation load
(`benchmarks/bench_load.py`, load average 11 on 2 cores) turns spent 38 % of their time waiting
for that lock. Here a write is handed to one writer thread once; the writes waiting when it
starts a transaction are executed and committed together ("group commit"), then each caller gets
its own result.

A statement that fails (a constraint) fails alone: SQLite undoes only that statement and the
transaction goes on, so the others still commit; its caller gets None and a warning, as
Chainlit's `execute_sql` does on an error. A commit that fails fails every write of its group.
Reads stay on the SQLAlchemy engine (WAL: a reader never waits for the writer, and sees each
group once committed, before its callers are answered).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sqlite3
import threading
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)

GROUP_MAX = 64  # writes committed in one transaction at most
TIMEOUT_S = 30  # another process holding the lock is waited for (as the engine's connections do)


@dataclass
class _Write:
    sql: str
    parameters: dict[str, Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]


class SqliteWriter:
    """`await writer.execute(sql, parameters)` -> rows (a list of dicts) or the row count; None on an error."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._queue: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self.groups = 0  # transactions committed (the tests read it)

    async def execute(self, sql: str, parameters: dict[str, Any]) -> Any:
        self._ensure_thread()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._queue.put(_Write(sql, parameters, loop, future))
        return await future

    def close(self) -> None:
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout=10)
            self._thread = None

    def _ensure_thread(self) -> None:
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="relais-sqlite-writer", daemon=True)
                self._thread.start()

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=TIMEOUT_S, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA synchronous=NORMAL")  # as the engine's connections (chatbot.persistence)
        return conn

    def _run(self) -> None:
        conn = self._connect()
        try:
            while True:
                first = self._queue.get()
                if first is None:
                    return
                group = [first]
                while len(group) < GROUP_MAX:
                    try:
                        item = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if item is None:
                        self._queue.put(None)  # stop after this group
                        break
                    group.append(item)
                self._commit(conn, group)
        finally:
            conn.close()

    def _commit(self, conn: sqlite3.Connection, group: list[_Write]) -> None:
        outcomes: list[tuple[bool, Any]] = []
        try:
            conn.execute("BEGIN IMMEDIATE")
            for write in group:
                outcomes.append(_run_one(conn, write))
                if not conn.in_transaction:  # an error SQLite answers by undoing the whole transaction
                    raise sqlite3.OperationalError("the transaction was rolled back")
            conn.execute("COMMIT")
            self.groups += 1
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            logger.warning("chat database write group of %d failed: %s", len(group), exc)
            outcomes = [(False, None)] * len(group)
        for write, (_, value) in zip(group, outcomes, strict=True):
            write.loop.call_soon_threadsafe(_resolve, write.future, value)


def _run_one(conn: sqlite3.Connection, write: _Write) -> tuple[bool, Any]:
    try:
        cursor = conn.execute(write.sql, write.parameters)
    except sqlite3.Error as exc:  # this statement only: SQLite undid it, the transaction goes on
        logger.warning("chat database write failed: %s", exc)
        return False, None
    if cursor.description is None:
        return True, cursor.rowcount
    names = [column[0] for column in cursor.description]
    return True, [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _resolve(future: asyncio.Future[Any], value: Any) -> None:
    if not future.done():
        future.set_result(value)
