"""The assistant's settings: the orchestrator switch, the classifier and the agent client's."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from assistant.settings import AssistantSettings, assistant_settings
from relais.settings import Settings, clear_settings_caches, secret_values


def test_the_orchestrator_is_off_by_default() -> None:
    assert assistant_settings().enable_orchestrator is False


@pytest.mark.parametrize(("value", "on"), [("true", True), ("1", True), ("yes", True), ("false", False), ("0", False)])
def test_enable_orchestrator_has_one_reading(value: str, on: bool, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text(f"ENABLE_ORCHESTRATOR={value}\n")
    clear_settings_caches()
    assert assistant_settings().enable_orchestrator is on
    monkeypatch.setenv("ENABLE_ORCHESTRATOR", "false")  # the environment wins over .env
    clear_settings_caches()
    assert assistant_settings().enable_orchestrator is False


def test_agent_client_settings_and_the_kits_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXTERNAL_AGENT_API_KEY", " ")
    monkeypatch.setenv("EXTERNAL_AGENT_PROTOCOL", "langgraph")
    settings = AssistantSettings().on(Settings(external_agent_token=SecretStr("tok-123456")))
    assert settings.external_agent_api_key is None and settings.external_agent_protocol == "langgraph"
    assert settings.kit.external_agent_token is not None
    assert "tok-123456" in secret_values(settings)
    with pytest.raises(ValueError):
        AssistantSettings(external_agent_protocol="grpc")
