"""Store receipts in a SQLite table under the app's data folder, list them per thread, export JSONL.

Why SQLite (stdlib `sqlite3`): the Chainlit app and the coach service are separate processes that
both record; WAL mode plus a busy timeout lets them share one small file. One row per
(operation_id, attempt): recording the same handoff again (a resumed node re-runs from its start,
evidence arrives in stages) updates that row instead of adding a second action, while a retry
(attempt 2) of the same operation is kept beside the first.

Only content-free receipts are accepted: `content_problems` must find nothing (ids and key names
only, no free text, no absolute paths, no configured secrets).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from handoff_audit.receipt import Receipt, ResultCheck, content_problems, iso_utc

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS handoff_receipts (
    operation_id TEXT NOT NULL,
    attempt      INTEGER NOT NULL,
    thread_id    TEXT NOT NULL,
    recorded_at  TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    receipt      TEXT NOT NULL,
    PRIMARY KEY (operation_id, attempt)
);
CREATE INDEX IF NOT EXISTS handoff_receipts_thread ON handoff_receipts (thread_id, recorded_at);
"""


class UnsafeReceipt(ValueError):
    """The receipt carries something that is not an id or key (text, a path or a secret)."""


@dataclass(frozen=True)
class StoredReceipt:
    """A receipt with where and when it was recorded."""

    thread_id: str
    recorded_at: str
    updated_at: str
    receipt: Receipt


def default_receipts_path() -> Path:
    """`<RELAIS_DATA_DIR>/receipts.db`."""
    from relais.settings import get_settings

    return get_settings().data_dir / "receipts.db"


class ReceiptStore:
    """A receipts table in one SQLite file (created on first use)."""

    def __init__(
        self, path: str | Path | None = None, *, secrets: Iterable[str] | None = None
    ) -> None:
        self.path = Path(path) if path is not None else default_receipts_path()
        if secrets is None:
            from relais.settings import get_settings

            secrets = get_settings().secret_values()
        self._secrets = [s for s in secrets if s]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as conn, conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10.0)

    def record(self, receipt: Receipt, thread_id: str) -> None:
        """Insert or update the row of (operation_id, attempt). Raises `UnsafeReceipt` if not clean."""
        problems = content_problems(receipt, self._secrets)
        if problems:
            raise UnsafeReceipt("; ".join(problems))
        now = iso_utc(datetime.now(UTC))
        with closing(self._connect()) as conn, conn:
            conn.execute(
                """
                INSERT INTO handoff_receipts (operation_id, attempt, thread_id, recorded_at, updated_at, receipt)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (operation_id, attempt)
                DO UPDATE SET receipt = excluded.receipt, updated_at = excluded.updated_at
                """,
                (
                    receipt.operation_id,
                    receipt.attempt,
                    str(thread_id),
                    now,
                    now,
                    receipt.to_json(),
                ),
            )

    def try_record(self, receipt: Receipt, thread_id: str) -> bool:
        """`record` for production paths: an audit failure is logged (field names only), never raised."""
        try:
            self.record(receipt, thread_id)
            return True
        except (UnsafeReceipt, sqlite3.Error) as exc:
            log.warning("handoff receipt %s not recorded: %s", receipt.operation_id, exc)
            return False

    def resolve_wait(
        self,
        operation_id: str,
        *,
        verifier: str = "resumed_by_owner",
        passed: bool = True,
        at: datetime | None = None,
    ) -> bool:
        """Close a recorded wait once its owner answered: `complete` plus a verifier result.

        Without this, an answered wait would turn UNCERTAIN once its deadline passes. Returns
        False when no waiting receipt with that id is stored.
        """
        with closing(self._connect()) as conn:
            row = conn.execute(
                "SELECT thread_id, receipt FROM handoff_receipts WHERE operation_id = ? "
                "ORDER BY attempt DESC LIMIT 1",
                (operation_id,),
            ).fetchone()
        if row is None:
            return False
        receipt = Receipt.from_json(row[1])
        if receipt.final_state != "waiting":
            return False
        check = ResultCheck(verifier=verifier, passed=passed, checked_at=at or datetime.now(UTC))
        self.record(receipt.model_copy(update={"final_state": "complete", "result": check}), row[0])
        return True

    def list(
        self, thread_id: str | None = None, *, since: str | None = None
    ) -> list[StoredReceipt]:
        """Receipts in recording order, optionally for one thread and updated at/after `since`.

        `since` is an ISO timestamp (e.g. taken when a turn started), so a UI can show just the
        receipts that turn produced, whichever process recorded them.
        """
        query = "SELECT thread_id, recorded_at, updated_at, receipt FROM handoff_receipts"
        clauses: list[str] = []
        params: list[str] = []
        if thread_id is not None:
            clauses.append("thread_id = ?")
            params.append(str(thread_id))
        if since is not None:
            clauses.append("updated_at >= ?")
            params.append(since)
        if clauses:
            query += " WHERE " + " AND ".join(clauses)
        query += " ORDER BY recorded_at, rowid"
        with closing(self._connect()) as conn:
            rows = conn.execute(query, params).fetchall()
        return [StoredReceipt(t, rec, upd, Receipt.from_json(raw)) for t, rec, upd, raw in rows]

    def receipts(self, thread_id: str | None = None) -> list[Receipt]:
        return [row.receipt for row in self.list(thread_id)]

    def iter_jsonl(self, thread_id: str | None = None) -> Iterator[str]:
        for row in self.list(thread_id):
            yield row.receipt.to_json()

    def export_jsonl(self, destination: str | Path, thread_id: str | None = None) -> int:
        """Write one receipt per line (readable back by `relais audit classify`); returns the count."""
        lines = list(self.iter_jsonl(thread_id))
        Path(destination).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return len(lines)


def read_receipts(text: str) -> list[Receipt]:
    """Parse a receipt JSON object, a JSON array of receipts, or JSONL (blank lines skipped).

    Raises `ValueError` naming the 1-based line (or item) that does not validate.
    """
    stripped = text.strip()
    if not stripped:
        return []
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict):
        return [_validate(data, "receipt")]
    if isinstance(data, list):
        return [_validate(item, f"item {i}") for i, item in enumerate(data, 1)]
    receipts: list[Receipt] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                receipts.append(_validate(json.loads(line), f"line {number}"))
            except json.JSONDecodeError as exc:
                raise ValueError(f"line {number}: not JSON ({exc.msg})") from None
    return receipts


def _validate(data: object, where: str) -> Receipt:
    from pydantic import ValidationError

    try:
        return Receipt.model_validate(data)
    except ValidationError as exc:
        fields = ", ".join(
            ".".join(str(p) for p in err["loc"]) or "receipt" for err in exc.errors()
        )
        raise ValueError(f"{where}: invalid receipt ({fields})") from None
