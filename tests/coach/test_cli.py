"""The coach CLI: `coach route`, `coach chat`, `eval router`, through Typer's runner."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from coach.cli import coach_app, eval_router_command

runner = CliRunner()


def test_route_json() -> None:
    result = runner.invoke(
        coach_app, ["route", "Que manger après la salle ?", "--last", "workout", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {"agent": "nutrition_advisor"}


def test_route_fallback_and_bad_last() -> None:
    result = runner.invoke(
        coach_app, ["route", "tell me more", "--last", "nutrition_advisor", "--json"]
    )
    assert json.loads(result.output) == {"agent": "nutrition_advisor"}
    result = runner.invoke(coach_app, ["route", "tell me more", "--json"])
    assert json.loads(result.output) == {"agent": "workout_advisor"}
    assert runner.invoke(coach_app, ["route", "x", "--last", "chef"]).exit_code != 0


def _eval_app() -> typer.Typer:
    app = typer.Typer()
    app.command("router")(eval_router_command)
    app.command("noop")(lambda: None)  # keep "router" a sub-command, as in `relais eval router`
    return app


def test_eval_router_defaults_to_shipped_set() -> None:
    result = runner.invoke(_eval_app(), ["router", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["n"] >= 40 and data["accuracy"] == 1.0 and data["errors"] == []


def test_eval_router_on_a_file(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    lines = [
        {"text": "How many reps?", "last": None, "expect": "workout_advisor"},
        {"text": "ok", "last": "nutrition_advisor", "expect": "workout_advisor"},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    data = json.loads(runner.invoke(_eval_app(), ["router", str(path), "--json"]).output)
    assert data["n"] == 2 and data["accuracy"] == 0.5
    assert data["errors"][0]["text"] == "ok" and data["errors"][0]["got"] == "nutrition_advisor"


def test_eval_router_rejects_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "no label"}\n', encoding="utf-8")
    assert runner.invoke(_eval_app(), ["router", str(path), "--json"]).exit_code != 0


def test_chat_offline_conversation_with_quick_choice() -> None:
    # turn 1, then "3" picks the third quick choice ("Vegetarian"), then quit
    result = runner.invoke(
        coach_app,
        ["chat", "--thread", "cli-test", "--checkpoint", ":memory:"],
        input="Build muscle, lose fat — suggest a workout plan\n3\nquit\n",
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "workout_plan(goal=mixed)" in out
    assert "Upper body A" in out
    assert "[3] Vegetarian" in out  # the interrupt prompt and its choices are shown
    assert "meal_plan(goal=mixed, diet=vegetarian)" in out  # the click became "I'm vegetarian."
    assert "relais coach chat --thread cli-test" in out


def test_chat_resumes_a_saved_thread(tmp_path: Path) -> None:
    db = str(tmp_path / "cp.db")
    first = runner.invoke(
        coach_app,
        ["chat", "--thread", "t1", "--checkpoint", db],
        input="I want to build muscle\nquit\n",
    )
    assert first.exit_code == 0, first.output
    second = runner.invoke(
        coach_app, ["chat", "--thread", "t1", "--checkpoint", db], input="quit\n"
    )
    # the pending question is shown again on resume
    assert "Anything I should take into account" in second.output


def test_cli_import_stays_light() -> None:
    import subprocess
    import sys

    code = "import sys, coach, coach.cli; print(sorted(m for m in ('langgraph', 'uvicorn', 'langchain_core') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"
