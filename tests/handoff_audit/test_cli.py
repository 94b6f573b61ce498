"""`relais audit` commands through Typer's CliRunner (the lead mounts `audit_app` as `audit`)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from handoff_audit.cli import audit_app
from handoff_audit.receipt import Receipt
from handoff_audit.recorder import ReceiptStore
from tests.handoff_audit.factories import healthy, valid_wait

runner = CliRunner()


def _json_lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def test_classify_one_receipt_json(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(healthy(context_keys_present=["goal"]), indent=2))
    result = runner.invoke(audit_app, ["classify", str(path), "--json"])
    assert result.exit_code == 0, result.output
    [item] = _json_lines(result.output)
    assert set(item) == {"operation_id", "verdict", "boundaries"}
    assert item["verdict"] == "CONTEXT_INCOMPLETE"
    assert list(item["boundaries"]) == [
        "route",
        "control",
        "tool_protocol",
        "context",
        "destination",
        "result",
    ]
    assert item["boundaries"]["context"] == {
        "passed": False,
        "code": "CONTEXT_INCOMPLETE",
        "reason": "missing required keys: constraints",
    }


def test_classify_jsonl_with_now(tmp_path: Path) -> None:
    waiting = healthy(
        operation_id="op-w",
        final_state="waiting",
        result=None,
        wait=valid_wait(deadline_utc="2026-12-01T00:00:00Z"),
    )
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(healthy()) + "\n" + json.dumps(waiting) + "\n")
    before = _json_lines(
        runner.invoke(
            audit_app, ["classify", str(path), "--now", "2026-11-30T00:00:00Z", "--json"]
        ).output
    )
    after = _json_lines(
        runner.invoke(
            audit_app, ["classify", str(path), "--now", "2026-12-02T00:00:00Z", "--json"]
        ).output
    )
    assert [i["verdict"] for i in before] == ["HEALTHY", "WAITING_ON_APPROVAL"]
    assert [i["verdict"] for i in after] == ["HEALTHY", "UNCERTAIN"]


def test_classify_human_output_and_stdin() -> None:
    result = runner.invoke(
        audit_app, ["classify", "-"], input=json.dumps(healthy(goto="workout_advisor"))
    )
    assert result.exit_code == 0
    assert result.output.startswith(
        "op-test-1  ROUTE_REJECTED  (route: goto 'workout_advisor' differs"
    )


def test_classify_bad_input_exits_2_with_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(healthy()) + "\n" + json.dumps(healthy(final_state="done")) + "\n")
    result = runner.invoke(audit_app, ["classify", str(path)])
    assert result.exit_code == 2
    assert "line 2" in result.output
    assert runner.invoke(audit_app, ["classify", str(tmp_path / "missing.json")]).exit_code == 2
    assert runner.invoke(audit_app, ["classify", str(path), "--now", "yesterday"]).exit_code == 2


def test_replay_prints_the_table_and_8_of_8() -> None:
    result = runner.invoke(audit_app, ["replay"])
    assert result.exit_code == 0
    lines = result.output.strip().splitlines()
    assert lines[-1] == "8/8 expected verdicts"
    assert len(lines) == 10  # header + 8 cases + summary
    data = json.loads(runner.invoke(audit_app, ["replay", "--json"]).output)
    assert (data["passed"], data["total"]) == (8, 8)


def test_list_and_export_read_the_chat_database(tmp_path: Path) -> None:
    store = ReceiptStore()
    store.record(Receipt.model_validate(healthy(operation_id="op-1")), "thread-a")
    store.record(Receipt.model_validate(healthy(operation_id="op-2", result=None)), "thread-b")

    listed = _json_lines(runner.invoke(audit_app, ["list", "--json"]).output)
    assert [(i["thread_id"], i["operation_id"], i["verdict"]) for i in listed] == [
        ("thread-a", "op-1", "HEALTHY"),
        ("thread-b", "op-2", "FALSE_COMPLETE"),
    ]
    only_b = runner.invoke(audit_app, ["list", "--thread", "thread-b"])
    assert "op-2#1" in only_b.output and "op-1" not in only_b.output
    assert "no receipts recorded" in runner.invoke(audit_app, ["list", "--thread", "nope"]).output
    alarms = _json_lines(runner.invoke(audit_app, ["list", "--verdict", "false_complete", "--json"]).output)
    assert [i["operation_id"] for i in alarms] == ["op-2"]
    other_db = runner.invoke(audit_app, ["list", "--db", str(tmp_path / "other.db")])
    assert "no receipts recorded" in other_db.output  # --db takes a SQLite file (or a URL)

    out = tmp_path / "export.jsonl"
    assert runner.invoke(audit_app, ["export", str(out)]).exit_code == 0
    reclassified = _json_lines(runner.invoke(audit_app, ["classify", str(out), "--json"]).output)
    assert [i["verdict"] for i in reclassified] == ["HEALTHY", "FALSE_COMPLETE"]
