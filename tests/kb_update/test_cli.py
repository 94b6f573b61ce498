from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner

from kb_update.cli import kb_update_command
from tests.kb_update.conftest import snapshot

app = typer.Typer()
app.command("kb-update")(kb_update_command)
app.command("noop")(lambda: None)  # keeps `kb-update` a named sub-command, as in `relais`


def _invoke(*args: str, input: str | None = None):
    return CliRunner().invoke(app, ["kb-update", "--old", "$10/month", "--new", "$12/month", *args],
                              input=input, env={"COLUMNS": "200"})


def test_approve_all_runs_end_to_end_and_reports_units_retries_escalations(kb: Path, isolated_settings: Path) -> None:
    result = _invoke("--kb", str(kb), "--approve-all", "--no-reingest", "--wave-size", "3")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Search: 11 hit(s) → 5 unit(s), 2 discarded" in out
    assert "✗ billing/plans.md (attempt 1)" in out and "✓ billing/plans.md (attempt 2)" in out
    assert "Lesson proposed (billing/annual.md, billing/plans.md failed [derived-amount])" in out
    assert "published — 5 units, 7 worker calls (2 retries), 2 corrected, 0 escalated, 1 lesson(s) approved" in out
    assert "$12/month" in (kb / "billing/plans.md").read_text()
    assert (isolated_settings / "kb_update.sqlite").is_file()  # LangGraph's SQLite saver under the data dir


def test_interactive_reject_writes_nothing(kb: Path) -> None:
    before = snapshot(kb)
    result = _invoke("--kb", str(kb), "--no-reingest", input="y\nn\n")  # approve the lesson, reject publishing
    assert result.exit_code == 0, result.output
    assert "Add this lesson to every worker's brief?" in result.output
    assert "Publish 5 updated article(s)?" in result.output
    assert "Not approved: nothing was written." in result.output and "rejected —" in result.output
    assert snapshot(kb) == before


def test_no_answer_in_the_terminal_means_not_approved(kb: Path) -> None:
    before = snapshot(kb)
    result = _invoke("--kb", str(kb), "--no-reingest", input="")
    assert result.exit_code == 0, result.output
    assert snapshot(kb) == before


def test_bad_input_is_reported_without_a_traceback(kb: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["kb-update", "--old", "ten bucks", "--new", "$12/month", "--kb", str(kb)])
    assert result.exit_code == 2 and "not a price" in result.output
    missing = _invoke("--kb", str(tmp_path / "nope"))
    assert missing.exit_code == 2 and "not found" in missing.output
