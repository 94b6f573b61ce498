"""Store receipts in a table of the chat database, list them (per thread, filtered), export JSONL.

Why the chat database: every app instance and the coach service already share it (SQLite file by
default, Postgres when `DATABASE_URL` points there), so a receipt written by one instance is
listed by every other, and by `relais audit list`. The URL comes from the kit's settings
(`Settings.receipts_db_url`, the synchronous twin of the Chainlit data layer's URL): this package
never imports the chatbot. One engine per URL and process (SQLAlchemy pools connections).

One row per (operation_id, attempt): recording the same handoff again (a resumed node re-runs from
its start, evidence arrives in stages) updates that row instead of adding a second action, while a
retry (attempt 2) of the same operation is kept beside the first.

Only content-free receipts are accepted: `content_problems` must find nothing (ids and key names
only, no free text, no absolute paths, no configured secrets).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.exc import SQLAlchemyError

from handoff_audit.receipt import Receipt, ResultCheck, as_utc, content_problems, iso_utc
from relais.settings import get_settings, secret_values

log = logging.getLogger(__name__)

TABLE = "handoff_receipts"
_SCHEMA = (
    f"""CREATE TABLE IF NOT EXISTS {TABLE} (
        operation_id TEXT NOT NULL,
        attempt      INTEGER NOT NULL,
        thread_id    TEXT NOT NULL,
        recorded_at  TEXT NOT NULL,
        updated_at   TEXT NOT NULL,
        final_state  TEXT,
        receipt      TEXT NOT NULL,
        PRIMARY KEY (operation_id, attempt))""",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_thread ON {TABLE} (thread_id, recorded_at)",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_recorded ON {TABLE} (recorded_at)",
)


class UnsafeReceipt(ValueError):
    """The receipt carries something that is not an id or key (text, a path or a secret)."""


@dataclass(frozen=True)
class StoredReceipt:
    """A receipt with where and when it was recorded."""

    thread_id: str
    recorded_at: str
    updated_at: str
    receipt: Receipt


def database_url(target: str | Path | None = None) -> str:
    """A SQLAlchemy URL: `target` as is when it is a URL, a SQLite file when it is a path,
    else the chat database from the settings (`Settings.receipts_db_url`)."""
    if target is None:
        return get_settings().receipts_db_url
    value = str(target)
    if "://" in value:
        return value
    return f"sqlite:///{Path(value).expanduser().resolve()}"


_ENGINES: dict[str, Engine] = {}
_ENGINES_LOCK = threading.Lock()


def _sqlite_pragmas(dbapi_connection: object, _record: object) -> None:
    """Wait for the lock; commit without an fsync (WAL, as the chat database's own writes do: a
    killed process loses nothing committed). Receipts share the chat database with the app's
    steps: an fsync per receipt held the file's write lock while the disk synced, and the app's
    step writes waited behind it (2.5 s in all in `INSERT handoff_receipts` under the
    50-conversation load, `benchmarks/bench_load.py`)."""
    cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def engine_for(url: str) -> Engine:
    """One pooled engine per URL and process; SQLite waits for locks instead of failing."""
    with _ENGINES_LOCK:
        engine = _ENGINES.get(url)
        if engine is None:
            if url.startswith("sqlite"):
                path = url.split(":///", 1)[-1]
                if path and path != ":memory:":
                    Path(path).parent.mkdir(parents=True, exist_ok=True)
                engine = create_engine(url, connect_args={"timeout": 30})
                event.listen(engine, "connect", _sqlite_pragmas)
                with engine.connect() as conn:
                    conn.exec_driver_sql("PRAGMA journal_mode=WAL")
            else:
                engine = create_engine(url, pool_pre_ping=True, pool_size=2, max_overflow=4)
            _ENGINES[url] = engine
        return engine


def dispose_engines() -> None:
    """Close every pooled connection (tests, process shutdown)."""
    with _ENGINES_LOCK:
        for engine in _ENGINES.values():
            engine.dispose()
        _ENGINES.clear()


class ReceiptStore:
    """The receipts table of one database (created on first use).

    `target`: a SQLAlchemy URL, a SQLite file path, or None for the chat database of the settings.
    """

    def __init__(
        self, target: str | Path | None = None, *, secrets: Iterable[str] | None = None
    ) -> None:
        self.url = database_url(target)
        if secrets is None:
            secrets = secret_values()
        self._secrets = [s for s in secrets if s]
        self.engine = engine_for(self.url)
        with self.engine.begin() as conn:
            for statement in _SCHEMA:
                conn.execute(text(statement))

    @property
    def backend(self) -> str:
        return self.engine.url.get_backend_name()

    def record(self, receipt: Receipt, thread_id: str) -> None:
        """Insert or update the row of (operation_id, attempt). Raises `UnsafeReceipt` if not clean."""
        problems = content_problems(receipt, self._secrets)
        if problems:
            raise UnsafeReceipt("; ".join(problems))
        now = iso_utc(datetime.now(UTC))
        with self.engine.begin() as conn:
            conn.execute(
                text(
                    f"INSERT INTO {TABLE} (operation_id, attempt, thread_id, recorded_at, updated_at,"
                    " final_state, receipt) VALUES (:op, :attempt, :thread, :now, :now, :state, :receipt)"
                    " ON CONFLICT (operation_id, attempt) DO UPDATE SET receipt = excluded.receipt,"
                    " updated_at = excluded.updated_at, final_state = excluded.final_state"
                ),
                {
                    "op": receipt.operation_id,
                    "attempt": receipt.attempt,
                    "thread": str(thread_id),
                    "now": now,
                    "state": receipt.final_state,
                    "receipt": receipt.to_json(),
                },
            )

    def try_record(self, receipt: Receipt, thread_id: str) -> bool:
        """`record` for production paths: an audit failure is logged (field names only), never raised."""
        try:
            self.record(receipt, thread_id)
            return True
        except (UnsafeReceipt, SQLAlchemyError) as exc:
            log.warning("handoff receipt %s not recorded: %s", receipt.operation_id, exc)
            return False

    def latest(self, operation_id: str) -> StoredReceipt | None:
        """The last attempt stored for an operation (None if unknown)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                text(
                    f"SELECT thread_id, recorded_at, updated_at, receipt FROM {TABLE}"
                    " WHERE operation_id = :op ORDER BY attempt DESC LIMIT 1"
                ),
                {"op": operation_id},
            ).first()
        return StoredReceipt(row[0], row[1], row[2], Receipt.from_json(row[3])) if row else None

    def list_operation(self, operation_id: str) -> list[StoredReceipt]:
        """Every attempt stored for one operation, first attempt first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                text(
                    f"SELECT thread_id, recorded_at, updated_at, receipt FROM {TABLE}"
                    " WHERE operation_id = :op ORDER BY attempt"
                ),
                {"op": operation_id},
            ).fetchall()
        return [StoredReceipt(t, rec, upd, Receipt.from_json(raw)) for t, rec, upd, raw in rows]

    def resolve_wait(
        self,
        operation_id: str,
        *,
        verifier: str = "resumed_by_owner",
        passed: bool = True,
        at: datetime | None = None,
    ) -> bool:
        """Close a recorded wait once its owner answered: `complete` plus a verifier result.

        Without this, an answered wait would turn UNCERTAIN once its deadline passes. An answer
        that came after the wait's deadline does not close it: the wait stays as recorded, and
        is judged UNCERTAIN (the authority it waited for had expired). Returns False when no
        open wait with that id is stored, or when it is left open for that reason.
        """
        row = self.latest(operation_id)
        if row is None or row.receipt.final_state != "waiting":
            return False
        moment = as_utc(at or datetime.now(UTC))
        wait = row.receipt.wait
        if wait is not None and wait.deadline_utc is not None and wait.deadline_utc <= moment:
            log.info("wait %s answered after its deadline: left open", operation_id)
            return False
        check = ResultCheck(verifier=verifier, passed=passed, checked_at=moment)
        self.record(
            row.receipt.model_copy(update={"final_state": "complete", "result": check}),
            row.thread_id,
        )
        return True

    def list(
        self,
        thread_id: str | None = None,
        *,
        since: str | None = None,
        until: str | None = None,
        limit: int | None = None,
    ) -> list[StoredReceipt]:
        """Receipts in recording order, optionally for one thread and updated in [since, until].

        `since`/`until` are ISO timestamps (e.g. taken when a turn started), so a UI can show just
        the receipts that turn produced, whichever process recorded them. `limit` keeps the newest.
        """
        clauses: list[str] = []
        params: dict[str, object] = {}
        if thread_id is not None:
            clauses.append("thread_id = :thread")
            params["thread"] = str(thread_id)
        if since is not None:
            clauses.append("updated_at >= :since")
            params["since"] = iso_utc(as_utc(datetime.fromisoformat(since)))
        if until is not None:
            clauses.append("recorded_at <= :until")
            params["until"] = iso_utc(as_utc(datetime.fromisoformat(until)))
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        order = "recorded_at, operation_id, attempt"
        query = (
            "SELECT thread_id, recorded_at, updated_at, receipt, operation_id, attempt"
            f" FROM {TABLE}{where}"
        )
        if limit is not None:
            query = f"SELECT * FROM ({query} ORDER BY recorded_at DESC LIMIT {int(limit)}) AS newest"
        with self.engine.connect() as conn:
            rows = conn.execute(text(f"{query} ORDER BY {order}"), params).fetchall()
        return [StoredReceipt(row[0], row[1], row[2], Receipt.from_json(row[3])) for row in rows]

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
    try:
        return Receipt.model_validate(data)
    except ValidationError as exc:
        fields = ", ".join(
            ".".join(str(p) for p in err["loc"]) or "receipt" for err in exc.errors()
        )
        raise ValueError(f"{where}: invalid receipt ({fields})") from None
