"""`relais doctor` on healthy and broken setups, and the app refusing to start on a fatal check."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr

from assistant.settings import AssistantSettings
from chatbot import doctor
from chatbot.doctor import Check, run_checks
from chatbot.settings import ChatbotSettings
from knowledge.settings import KnowledgeSettings
from relais.settings import Settings, clear_settings_caches
from tests.chainlit_driver import APP_FILE, agent_server, app_root, relais_env
from tests.conftest import REPO_ROOT, free_port

STRONG = SecretStr("alice:alice-long-password")


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {c.name: c for c in checks}


def closed_port() -> int:
    return free_port()  # nothing listens there


def test_a_fresh_local_setup_passes_the_start_checks(tmp_path: Path) -> None:
    checks = by_name(run_checks(ChatbotSettings().on(Settings(relais_data_dir=tmp_path / "data")), "127.0.0.1",
                                at_start=True))
    assert {c.status for c in checks.values()} == {"ok"}, [c.line() for c in checks.values()]
    assert "created at first start" in checks["chat database"].detail
    assert "files present" in checks["encoder"].detail and "offline engine" in checks["model"].detail
    assert "external agent" not in checks  # the agent may start after the app: not a start check


def test_an_existing_sqlite_chat_database_reports_its_schema(tmp_path: Path) -> None:
    from chatbot.persistence import create_data_layer_sync

    settings = Settings(relais_data_dir=tmp_path / "data")
    create_data_layer_sync(settings)
    check = doctor.check_chat_database(settings)
    assert check.status == "ok" and "SQLite 3." in check.detail and "schema 6/6 tables" in check.detail, check.line()


def test_a_broken_setup_fails_each_check_with_a_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("CHROMA_HOST", "127.0.0.1")  # the knowledge base's settings
    monkeypatch.setenv("CHROMA_PORT", str(closed_port()))
    clear_settings_caches()
    settings = ChatbotSettings(relais_users=SecretStr("demo:relais")).on(Settings(relais_data_dir=blocker / "data", database_url=f"postgresql://relais:s3cret-pw@127.0.0.1:{closed_port()}/relais", relais_model="nomodelprovider"))
    checks = by_name(run_checks(settings, "0.0.0.0", at_start=True))
    failed = {name for name, c in checks.items() if c.status == "fail"}
    assert failed == {"data folder", "credentials", "auth secret", "chat database", "checkpointer", "chroma", "model"}
    assert all(c.hint for c in checks.values() if c.status == "fail")
    assert "listens on 0.0.0.0" in checks["credentials"].detail and "RELAIS_USERS" in checks["credentials"].hint
    assert "CHAINLIT_AUTH_SECRET" in checks["auth secret"].hint
    assert "DATABASE_URL" in checks["chat database"].hint and "CHROMA_HOST" in checks["chroma"].hint
    text = doctor.report(list(checks.values()), as_json=False)
    assert "s3cret-pw" not in text and "***" in text  # database passwords never printed
    assert text.splitlines()[-1] == "7 failed, 0 warning(s)"


def test_a_missing_encoder_file_fails(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(doctor, "_encoder_files", lambda name: [tmp_path / f"{name}.safetensors"])
    check = doctor.check_encoder(KnowledgeSettings(relais_embedding_model="minilm"), load=False)
    assert check.status == "fail" and check.fatal and "minilm.safetensors" in check.detail and "install" in check.hint


def test_external_agent_unreachable_is_reported(tmp_path: Path) -> None:
    settings = AssistantSettings(enable_orchestrator=True, external_agent_url=f"http://127.0.0.1:{closed_port()}")
    check = doctor.check_external_agent(settings)
    assert check.status == "fail" and "/health" in check.detail and "EXTERNAL_AGENT_URL" in check.hint


@pytest.mark.slow
def test_external_agent_health_and_token_on_the_real_service(tmp_path: Path) -> None:
    agent = agent_server(tmp_path / "agent-data", tmp_path, EXTERNAL_AGENT_TOKEN="the-right-token-123").start()
    try:
        ok = doctor.check_external_agent(AssistantSettings(enable_orchestrator=True, external_agent_url=agent.url).on(Settings(external_agent_token=SecretStr("the-right-token-123"))))
        wrong = doctor.check_external_agent(AssistantSettings(enable_orchestrator=True, external_agent_url=agent.url).on(Settings(external_agent_token=SecretStr("a-wrong-token-456"))))
    finally:
        agent.stop()
    assert ok.status == "ok" and "token accepted" in ok.detail, ok.line()
    assert wrong.status == "fail" and "401" in wrong.detail and "EXTERNAL_AGENT_TOKEN" in wrong.hint


@pytest.mark.slow
def test_the_command_prints_json_and_exits_non_zero_on_failure(tmp_path: Path) -> None:
    env = relais_env(tmp_path / "data", CHROMA_HOST="127.0.0.1", CHROMA_PORT=str(closed_port()))
    done = subprocess.run([sys.executable, "-m", "cli.app", "doctor", "--json", "--quick"], env=env,
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    result = json.loads(done.stdout)
    statuses = {c["name"]: c["status"] for c in result["checks"]}
    assert result["ok"] is False and statuses["chroma"] == "fail" and statuses["data folder"] == "ok"


@pytest.mark.slow
def test_the_app_refuses_to_start_off_loopback_with_the_demo_account_and_an_unreachable_database(tmp_path: Path) -> None:
    port = free_port()
    env = relais_env(tmp_path / "data", DATABASE_URL=f"postgresql://relais@127.0.0.1:{closed_port()}/relais",
                     RELAIS_USERS="demo:relais", CHAINLIT_APP_ROOT=str(app_root(tmp_path, port)))
    done = subprocess.run([sys.executable, "-m", "chainlit", "run", str(APP_FILE), "--headless", "--host", "0.0.0.0",
                           "--port", str(port)], env=env, cwd=app_root(tmp_path, port), capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 2, done.stderr[-2000:]
    err = done.stderr
    assert "refusing to start" in err and "listens on 0.0.0.0" in err and "demo/relais" in err
    assert "fix: set RELAIS_USERS" in err and "relais hash-password" in err
    assert "chat database" in err and "DATABASE_URL" in err
