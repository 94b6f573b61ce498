"""`relais debate` through Typer's CliRunner, the model injected via the context object."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from debate.cli import MODEL_FACTORY_KEY, debate_command
from relais.models import ModelNotConfigured
from tests.debate.fakes import Call, DebateScript, factory_for

FAST = {
    "DEBATE_RETRY_MULTIPLIER": "0",
    "DEBATE_RETRY_WAIT_MIN": "0",
    "DEBATE_RETRY_WAIT_MAX": "0",
    "DEBATE_MAX_RETRIES": "2",
}


def relais_app() -> typer.Typer:
    """Registered the way the lead's `relais` CLI does it."""
    app = typer.Typer()
    app.command("debate")(debate_command)

    @app.callback()
    def main() -> None:
        """relais"""

    return app


def invoke(args: list[str], factory: Any = None) -> Any:
    obj = {MODEL_FACTORY_KEY: factory} if factory else None
    return CliRunner().invoke(relais_app(), ["debate", *args], obj=obj, env=FAST)


def test_runs_a_debate_with_progress_transcript_metrics_and_files(tmp_path: Path) -> None:
    out = tmp_path / "run"

    def critique(call: Call, n: int) -> Any:  # model text that looks like rich markup
        return {"is_approved": True, "critique_feedback": "ok", "revised_argument": None}

    def thinking(call: Call, n: int) -> Any:
        arg = f"{call.team} argument r{call.round} pass {n + 1} [1] see [/red] note"
        return {"revised_argument": arg, "evidence": ["[bold]OECD[/bold] 2019"]}

    result = invoke(
        ["Cities should ban cars", "--rounds", "2", "--out", str(out)],
        factory_for(DebateScript(critique=critique, thinking=thinking).model()),
    )
    assert result.exit_code == 0, result.output
    assert "[1] see [/red] note" in result.output and "[bold]OECD[/bold] 2019" in result.output
    for text in (
        "Round 1/2",
        "Round 2/2",
        "Pros · round 1",
        "Cons · round 2",
        "pros argument r2 pass 1",
        "critique",
        "Loop-lock rate",
        "Mean refinements per approved argument",
        "graph.mmd",
    ):
        assert text in result.output
    for name in (
        "graph.mmd",
        "transcript.md",
        "metrics.json",
        "shared_memory.json",
        "run.json",
        "pros/persona.json",
        "cons/critique.json",
        "checkpoints.sqlite",
    ):
        assert (out / name).exists(), name
    assert json.loads((out / "metrics.json").read_text())["arguments_approved"] == 4
    assert (out / "graph.mmd").read_text().lstrip().startswith("---")


def test_without_a_model_it_says_how_to_configure_one(tmp_path: Path) -> None:
    result = invoke(["Cities should ban cars", "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert " ".join(ModelNotConfigured.HOW_TO.split()) in " ".join(result.output.split())
    assert not (tmp_path / "run").exists()


def test_failure_exits_non_zero_and_resume_finishes_the_run(tmp_path: Path) -> None:
    out = tmp_path / "run"

    def flaky(call: Call, n: int) -> Any:
        if call.team == "cons":
            return TimeoutError("provider timed out")
        return {"is_approved": True, "critique_feedback": "ok"}

    result = invoke(
        ["Cities should ban cars", "--rounds", "1", "--out", str(out)],
        factory_for(DebateScript(critique=flaky).model()),
    )
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert (
        "Debate failed: Cons critique (round 1, pass 1) failed after 2 attempt(s): TimeoutError"
        in output
    )
    assert f'Resume with: relais debate --resume --out "{out}"' in output
    assert json.loads((out / "run.json").read_text())["status"] == "failed"

    again = invoke(
        ["Cities should ban cars", "--out", str(out)], factory_for(DebateScript().model())
    )
    assert again.exit_code == 2 and "already holds a debate" in again.output

    resumed, seen = DebateScript(), []
    result = invoke(
        ["--resume", "--out", str(out), "--model", "mistralai:mistral-large-latest"],
        factory_for(resumed.model(), seen),
    )
    assert result.exit_code == 0, result.output
    assert "Resuming at round 1, Cons" in result.output
    assert [f"{c.team}_{c.node}" for c in resumed.log] == ["cons_critique"]
    assert {s["model_name"] for s in seen} == {
        "mistralai:mistral-large-latest"
    }  # switched for the rest
    record = json.loads((out / "run.json").read_text())
    assert (
        record["status"] == "completed"
        and record["config"]["model_name"] == "mistralai:mistral-large-latest"
    )


def test_a_model_that_cannot_be_created_is_a_clear_setup_error(tmp_path: Path) -> None:
    def broken_factory(**kwargs: Any) -> Any:
        raise ImportError("No module named 'langchain_openai'")

    result = invoke(
        ["Cities should ban cars", "--model", "openai:gpt-4o", "--out", str(tmp_path / "r")],
        broken_factory,
    )
    assert result.exit_code == 2
    assert "cannot create openai:gpt-4o: ImportError" in " ".join(result.output.split())


def test_usage_errors(tmp_path: Path) -> None:
    assert invoke([]).exit_code == 2
    assert invoke(["--resume"]).exit_code == 2
    result = invoke(
        ["--resume", "--out", str(tmp_path / "nothing")], factory_for(DebateScript().model())
    )
    assert result.exit_code == 2 and "nothing to resume" in result.output
