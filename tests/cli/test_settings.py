"""The command line's settings, and `relais run`'s one reading of ENABLE_ORCHESTRATOR."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.launcher import demo_environment, demo_turns_orchestrator_on
from cli.settings import cli_settings
from relais.settings import clear_settings_caches


def test_the_demo_points_the_app_at_the_agent_service(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_PORT", "9191")
    clear_settings_caches()
    env = demo_environment(cli_settings())
    assert env["EXTERNAL_AGENT_URL"] == "http://127.0.0.1:9191" and env["ENABLE_ORCHESTRATOR"] == "true"


def test_the_demo_leaves_a_chosen_switch_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert demo_turns_orchestrator_on()
    (tmp_path / ".env").write_text("ENABLE_ORCHESTRATOR=false\n")  # tests run in tmp_path
    assert not demo_turns_orchestrator_on()
    assert "ENABLE_ORCHESTRATOR" not in demo_environment(cli_settings())
