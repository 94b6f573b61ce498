"""ReceiptStore on the chat database (a SQLite file; Postgres in the scale run): round trip,
idempotence per (operation, attempt), export."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from handoff_audit.classifier import VerdictCode, classify
from handoff_audit.receipt import Receipt
from handoff_audit.recorder import ReceiptStore, UnsafeReceipt, read_receipts
from tests.handoff_audit.factories import NOW, healthy, valid_wait


def _r(**changes) -> Receipt:
    return Receipt.model_validate(healthy(**changes))


def test_default_store_is_the_chat_database(isolated_settings: Path) -> None:
    """No URL given: the table lives in Chainlit's database file (one store for the app)."""
    import sqlite3

    store = ReceiptStore(secrets=[])
    chat_db = isolated_settings.resolve() / "chainlit.db"
    assert store.url == f"sqlite:///{chat_db}"
    store.record(_r(operation_id="op-default"), "t")
    with sqlite3.connect(chat_db) as conn:
        assert conn.execute("SELECT operation_id FROM handoff_receipts").fetchall() == [
            ("op-default",)
        ]


def test_a_resume_after_the_deadline_leaves_the_wait_open(tmp_path: Path) -> None:
    from datetime import timedelta

    from handoff_audit.classifier import VerdictCode, classify

    store = ReceiptStore(tmp_path / "r.db", secrets=[])
    waiting = _r(operation_id="op-wait", final_state="waiting", result=None, wait=valid_wait())
    store.record(waiting, "t")
    late = waiting.wait.deadline_utc + timedelta(seconds=1)
    assert store.resolve_wait("op-wait", at=late) is False
    assert classify(store.receipts("t")[0], late).verdict is VerdictCode.UNCERTAIN
    assert store.resolve_wait("op-wait", at=waiting.wait.deadline_utc - timedelta(seconds=1))
    assert classify(store.receipts("t")[0], late).verdict is VerdictCode.HEALTHY


def test_round_trip_survives_a_new_store_instance(tmp_path: Path) -> None:
    path = tmp_path / "receipts.db"
    first = _r(operation_id="op-a")
    second = _r(operation_id="op-b", final_state="waiting", result=None, wait=valid_wait())
    store = ReceiptStore(path, secrets=[])
    store.record(first, "thread-1")
    store.record(second, "thread-1")
    store.record(_r(operation_id="op-c"), "thread-2")

    reopened = ReceiptStore(path, secrets=[])
    assert reopened.receipts("thread-1") == [first, second]
    assert [r.operation_id for r in reopened.receipts()] == ["op-a", "op-b", "op-c"]
    assert reopened.receipts("missing") == []
    assert (
        classify(reopened.receipts("thread-1")[1], NOW).verdict is VerdictCode.WAITING_ON_APPROVAL
    )
    rows = (
        sqlite3.connect(path)
        .execute("SELECT operation_id, attempt, thread_id FROM handoff_receipts")
        .fetchall()
    )
    assert sorted(rows) == [
        ("op-a", 1, "thread-1"),
        ("op-b", 1, "thread-1"),
        ("op-c", 1, "thread-2"),
    ]


def test_same_operation_and_attempt_updates_one_row(tmp_path: Path) -> None:
    store = ReceiptStore(tmp_path / "r.db", secrets=[])
    running = _r(final_state="in_progress", result=None)
    store.record(running, "t")
    store.record(running, "t")  # a resumed node re-records the same evidence
    done = _r()
    store.record(done, "t")
    rows = store.list("t")
    assert len(rows) == 1 and rows[0].receipt == done
    assert rows[0].updated_at >= rows[0].recorded_at


def test_a_retry_keeps_the_operation_id_and_adds_an_attempt(tmp_path: Path) -> None:
    store = ReceiptStore(tmp_path / "r.db", secrets=[])
    start = healthy()["destination_start"]
    store.record(_r(result=None), "t")
    store.record(_r(destination_start={**start, "attempt": 2}), "t")
    receipts = store.receipts("t")
    assert [(r.operation_id, r.attempt) for r in receipts] == [("op-test-1", 1), ("op-test-1", 2)]
    assert [classify(r, NOW).verdict.value for r in receipts] == ["FALSE_COMPLETE", "HEALTHY"]


@pytest.mark.parametrize(
    "changes",
    [
        {"sender": "Build muscle, lose fat — suggest a workout plan"},
        {"route_contract": "/srv/relais/data/contract"},
        {"tool_call_id": "s3cr3t-token-value"},
    ],
)
def test_unsafe_receipts_are_refused_and_not_stored(tmp_path: Path, changes) -> None:
    store = ReceiptStore(tmp_path / "r.db", secrets=["s3cr3t-token-value"])
    receipt = _r(**changes)
    with pytest.raises(UnsafeReceipt):
        store.record(receipt, "t")
    assert store.try_record(receipt, "t") is False
    assert store.receipts() == []


def test_secrets_default_to_the_configured_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    from relais.settings import clear_settings_caches

    monkeypatch.setenv("EXTERNAL_AGENT_TOKEN", "tok-0123456789abcdef")
    clear_settings_caches()
    store = ReceiptStore()
    with pytest.raises(UnsafeReceipt, match="secret"):
        store.record(_r(tool_call_id="tok-0123456789abcdef"), "t")


def test_export_jsonl_reads_back_as_receipts(tmp_path: Path) -> None:
    store = ReceiptStore(tmp_path / "r.db", secrets=[])
    store.record(_r(operation_id="op-1"), "t1")
    store.record(_r(operation_id="op-2", goto="workout_advisor"), "t2")
    out = tmp_path / "export.jsonl"
    assert store.export_jsonl(out) == 2
    back = read_receipts(out.read_text())
    assert [r.operation_id for r in back] == ["op-1", "op-2"]
    assert classify(back[1], NOW).verdict is VerdictCode.ROUTE_REJECTED
    assert store.export_jsonl(out, "t1") == 1


def test_two_processes_record_into_one_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    ReceiptStore(path, secrets=[]).record(_r(operation_id="op-parent"), "t")
    code = (
        "import sys; from handoff_audit.recorder import ReceiptStore; from handoff_audit.receipt import Receipt;"
        "r = Receipt.model_validate_json(sys.argv[2]);"
        "ReceiptStore(sys.argv[1], secrets=[]).record(r, 't')"
    )
    child = _r(operation_id="op-child").to_json()
    subprocess.run([sys.executable, "-c", code, str(path), child], check=True, timeout=60)
    assert [r.operation_id for r in ReceiptStore(path, secrets=[]).receipts("t")] == [
        "op-parent",
        "op-child",
    ]


def test_read_receipts_accepts_object_array_and_jsonl_and_names_bad_lines() -> None:
    import json

    one = json.dumps(healthy())
    assert len(read_receipts(one)) == 1
    assert len(read_receipts(json.dumps([healthy(), healthy(operation_id="op-2")]))) == 2
    assert len(read_receipts(one + "\n\n" + json.dumps(healthy(operation_id="op-2")) + "\n")) == 2
    with pytest.raises(ValueError, match="line 2"):
        read_receipts(one + "\n{not json\n")
    with pytest.raises(ValueError, match=r"line 1: invalid receipt \(final_state\)"):
        read_receipts(json.dumps(healthy(final_state="finished")) + "\n" + one)


def test_list_since_returns_only_what_a_turn_recorded(tmp_path: Path) -> None:
    import time

    from handoff_audit.receipt import iso_utc

    store = ReceiptStore(tmp_path / "r.db", secrets=[])
    store.record(_r(operation_id="op-old"), "t")
    time.sleep(0.01)
    from datetime import UTC, datetime

    turn_start = iso_utc(datetime.now(UTC))
    store.record(_r(operation_id="op-new"), "t")
    store.record(_r(operation_id="op-other-thread"), "u")
    assert [row.receipt.operation_id for row in store.list("t", since=turn_start)] == ["op-new"]
    assert len(store.list(since=turn_start)) == 2


def test_one_store_on_the_chat_database_of_each_backend(backend: str) -> None:
    """SQLite file by default, Postgres when DATABASE_URL points there (scale run): same code."""
    from relais.settings import get_settings

    url = get_settings().receipts_db_url
    assert url.startswith("sqlite:///" if backend == "sqlite" else "postgresql+psycopg://")
    thread = f"thread-{backend}-{datetime.now(UTC).timestamp()}"
    writer, reader = ReceiptStore(url, secrets=[]), ReceiptStore(url, secrets=[])
    writer.record(_r(operation_id=f"op-{thread}"), thread)
    writer.record(_r(operation_id=f"op-{thread}"), thread)  # same (operation, attempt): one row
    assert [r.operation_id for r in reader.receipts(thread)] == [f"op-{thread}"]
    assert reader.latest(f"op-{thread}") is not None
    assert reader.list(thread, limit=1)[0].thread_id == thread
