"""The coach's settings: its agent service's limits, read from the environment."""

from __future__ import annotations

import pytest

from coach.settings import CoachSettings, coach_settings
from relais.settings import clear_settings_caches


def test_defaults_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert CoachSettings().coach_interrupt_ttl_s == 86400
    monkeypatch.setenv("AGENT_RATE_LIMIT_PER_MINUTE", "7")
    monkeypatch.setenv("AGENT_ALLOWED_ORIGINS", "http://localhost:8000")
    clear_settings_caches()
    settings = coach_settings()
    assert settings.agent_rate_limit_per_minute == 7 and settings.agent_allowed_origins == "http://localhost:8000"
