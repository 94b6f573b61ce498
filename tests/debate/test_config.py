"""Config: one source of truth, file < .env < environment < explicit overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from debate.config import DebateConfig


def test_defaults_follow_the_spec() -> None:
    config = DebateConfig()
    assert (config.retry_multiplier, config.retry_wait_min, config.retry_wait_max) == (
        2.0,
        4.0,
        60.0,
    )
    assert config.rounds == 3 and config.model_name is None
    policy = config.retry_policy()
    assert (policy.max_attempts, policy.multiplier, policy.wait_min, policy.wait_max) == (
        10,
        2.0,
        4.0,
        60.0,
    )


def test_yaml_file_then_env_then_overrides(tmp_path: Path) -> None:
    path = tmp_path / "debate.yaml"
    path.write_text(
        "version: v6\nmodel_name: google_genai:gemini-flash\nrounds: 5\n"
        "temperature: 1\nmax_retries: 7\n"
    )
    config = DebateConfig.load(
        path, env={"DEBATE_ROUNDS": "4", "DEBATE_MODEL_NAME": "openai:gpt-4o"}
    )
    assert config.version == "v6" and config.max_retries == 7  # from the file
    assert config.rounds == 4 and config.model_name == "openai:gpt-4o"  # env beats the file
    assert (
        DebateConfig.load(path, env={"DEBATE_ROUNDS": "4"}, rounds=2).rounds == 2
    )  # flags beat env
    assert DebateConfig.load(path, env={}, rounds=None).rounds == 5  # None means "not given"


def test_json_file_nested_section_and_env_pointer(tmp_path: Path) -> None:
    path = tmp_path / "relais.json"
    path.write_text(json.dumps({"debate": {"refinement_cap": 5, "thinking_budget": 1024}}))
    config = DebateConfig.load(env={"DEBATE_CONFIG": str(path)})
    assert config.refinement_cap == 5 and config.thinking_budget == 1024


def test_dotenv_is_read_below_the_environment(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DEBATE_ROUNDS=6\nDEBATE_VERSION=from-dotenv\n")
    config = DebateConfig.load(env={"DEBATE_VERSION": "from-env"}, dotenv=tmp_path / ".env")
    assert config.rounds == 6 and config.version == "from-env"


def test_typos_and_bad_values_fail_loudly(tmp_path: Path) -> None:
    path = tmp_path / "debate.yaml"
    path.write_text("round: 3\n")
    with pytest.raises(ValidationError):
        DebateConfig.load(path, env={})
    with pytest.raises(ValidationError):
        DebateConfig.load(env={"DEBATE_ROUNDS": "zero"})
    assert DebateConfig.load(env={"DEBATE_MODEL_NAME": "  "}).model_name is None
