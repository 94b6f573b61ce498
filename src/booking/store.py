"""Where bookings are written: one SQLite file whose rows prove exactly-once.

Every write is keyed by the tool call that asked for it (`tool_call_id`, unique): a resumed run
that executes the same approved call again — a server restart mid-tool, a replayed task —
finds the row already there and returns it instead of writing a second one. A rejected call
never reaches the tool, so it writes nothing.
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS bookings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tool_call_id TEXT NOT NULL UNIQUE,
    activity TEXT NOT NULL,
    day TEXT NOT NULL,
    time TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'booked',
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cancellations (
    tool_call_id TEXT PRIMARY KEY,
    booking_id INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class Booking:
    id: int
    tool_call_id: str
    activity: str
    day: str
    time: str
    name: str
    status: str


class BookingStore:
    """Thread-safe enough for one process: one connection per call, SQLite's own locking."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        with closing(self._connect()) as conn, conn:
            conn.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=10)
        conn.row_factory = sqlite3.Row
        return conn

    def book(self, tool_call_id: str, activity: str, day: str, time: str, name: str = "") -> tuple[Booking, bool]:
        """Write the booking of this tool call once; (the row, whether this call wrote it)."""
        now = datetime.now(UTC).isoformat()
        with self._lock, closing(self._connect()) as conn, conn:
            cursor = conn.execute(
                "INSERT OR IGNORE INTO bookings (tool_call_id, activity, day, time, name, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (tool_call_id, activity, day, time, name, now),
            )
            row = conn.execute("SELECT * FROM bookings WHERE tool_call_id = ?", (tool_call_id,)).fetchone()
        return _booking(row), cursor.rowcount == 1

    def cancel(self, tool_call_id: str, booking_id: int) -> Booking | None:
        """Cancel a booking once per tool call; None when there is no such active booking."""
        now = datetime.now(UTC).isoformat()
        with self._lock, closing(self._connect()) as conn, conn:
            row = conn.execute("SELECT * FROM bookings WHERE id = ?", (booking_id,)).fetchone()
            done = conn.execute("SELECT 1 FROM cancellations WHERE tool_call_id = ?", (tool_call_id,)).fetchone()
            if row is None or (row["status"] != "booked" and not done):
                return None
            conn.execute(
                "INSERT OR IGNORE INTO cancellations (tool_call_id, booking_id, created_at) VALUES (?, ?, ?)",
                (tool_call_id, booking_id, now),
            )
            conn.execute("UPDATE bookings SET status = 'cancelled' WHERE id = ?", (booking_id,))
            row = conn.execute("SELECT * FROM bookings WHERE id = ?", (booking_id,)).fetchone()
        return _booking(row)

    def bookings(self) -> list[Booking]:
        with closing(self._connect()) as conn:
            return [_booking(r) for r in conn.execute("SELECT * FROM bookings ORDER BY id")]

    def cancellations(self) -> int:
        with closing(self._connect()) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM cancellations").fetchone()[0])


def _booking(row: sqlite3.Row) -> Booking:
    return Booking(row["id"], row["tool_call_id"], row["activity"], row["day"], row["time"], row["name"],
                   row["status"])
