"""`scripts/test.sh` cannot pass by skipping: CI refuses the skip variables, and the scale suite
runs even when its script lost its exec bit. The script runs for real, in a copy of the repo
layout whose installer, pytest and suite scripts are stubs that record what was called."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _stub(path: Path, body: str, executable: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/usr/bin/env bash\n" + body + "\n", encoding="utf-8")
    path.chmod(0o755 if executable else 0o644)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "test.sh", tmp_path / "scripts" / "test.sh")
    log = tmp_path / "calls.log"
    _stub(tmp_path / "scripts" / "install.sh", f'echo install >> "{log}"')
    _stub(tmp_path / "scripts" / "ensure-chromium.sh", f'echo chromium >> "{log}"')
    _stub(tmp_path / "scripts" / "ensure-system-packages.sh", f'echo system-packages >> "{log}"')
    _stub(tmp_path / "scripts" / "langgraph-server.sh", f'echo "langgraph-server $*" >> "{log}"')
    _stub(tmp_path / ".venv" / "bin" / "pytest", f'echo "pytest $*" >> "{log}"')
    # the scale script WITHOUT its exec bit, failing: test.sh must still run it and fail
    _stub(tmp_path / "scripts" / "scale-tests.sh", f'echo scale >> "{log}"; exit 3', executable=False)
    return tmp_path


def run(repo: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("CI", "RELAIS_SKIP_BROWSER", "RELAIS_SKIP_SCALE")}
    return subprocess.run(["bash", str(repo / "scripts" / "test.sh")], env={**clean, **env},
                          capture_output=True, text=True, timeout=60)


def calls(repo: Path) -> list[str]:
    log = repo / "calls.log"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


@pytest.mark.parametrize("variable", ["RELAIS_SKIP_BROWSER", "RELAIS_SKIP_SCALE"])
@pytest.mark.parametrize("ci", ["true", "1"])
def test_ci_refuses_the_skip_variables(repo: Path, variable: str, ci: str) -> None:
    result = run(repo, CI=ci, **{variable: "1"})
    assert result.returncode != 0
    assert variable in result.stderr and "refused" in result.stderr
    assert calls(repo) == []  # refused before anything ran


def test_a_lost_exec_bit_cannot_skip_the_scale_suite(repo: Path) -> None:
    result = run(repo, CI="true")
    made = calls(repo)
    pytest_runs = [i for i, call in enumerate(made) if call.startswith("pytest")]
    assert made.index("install") < pytest_runs[0]  # the venv before any suite
    assert made.index("langgraph-server install") < pytest_runs[0]  # the LangGraph server suites have their server
    assert made.index("system-packages") < pytest_runs[1]  # Chromium, PostgreSQL, nginx before their suites
    assert "scale" in calls(repo)
    assert result.returncode == 3  # the scale suite's failure is the run's failure


def test_a_developer_may_still_skip_locally(repo: Path) -> None:
    result = run(repo, RELAIS_SKIP_BROWSER="1", RELAIS_SKIP_SCALE="1")
    assert result.returncode == 0, result.stderr
    assert "SKIPPED" in result.stdout
    assert "scale" not in calls(repo) and "chromium" not in calls(repo)
    assert "system-packages" not in calls(repo)  # nothing installed with apt for suites that do not run


def test_a_failed_background_install_fails_the_run(repo: Path) -> None:
    _stub(repo / "scripts" / "langgraph-server.sh", 'echo "no such version"; exit 4')
    result = run(repo, CI="true")
    assert result.returncode == 1
    assert "installing langgraph" in result.stderr and "no such version" in result.stderr
    assert not any(call.startswith("pytest") for call in calls(repo))  # no suite ran without its server
