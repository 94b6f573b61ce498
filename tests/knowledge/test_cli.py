from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner

from knowledge.cli import ingest_command

app = typer.Typer()
app.command()(ingest_command)


def test_ingest_command_prints_the_summary(kb_folder: Path) -> None:
    result = CliRunner().invoke(app, [str(kb_folder)])
    assert result.exit_code == 0, result.output
    assert "Indexed 8 file(s)" in result.output
    again = CliRunner().invoke(app, [str(kb_folder)])
    assert "skipped 8 unchanged" in again.output


def test_ingest_command_missing_folder_fails(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [str(tmp_path / "missing")])
    assert result.exit_code == 1
    assert "not found" in result.output and "relais ingest" in result.output
