"""The debate's one source of truth: model, sampling, retries, rounds and refinement cap.

Values are merged, lowest to highest priority: defaults < a YAML/JSON file < `.env` <
environment (`DEBATE_*`) < explicit overrides (CLI flags, tests). Switching providers is one
value: `model_name: "openai:gpt-4o"` (or `DEBATE_MODEL_NAME=...`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from dotenv import dotenv_values
from pydantic import BaseModel, ConfigDict, Field, field_validator

from relais.retry import RetryPolicy

ENV_PREFIX = "DEBATE_"
CONFIG_FILE_ENV = "DEBATE_CONFIG"


class DebateConfig(BaseModel):
    """Everything a debate run depends on; recorded in `run.json` so a resume uses the same."""

    model_config = ConfigDict(frozen=True, extra="forbid", protected_namespaces=())

    version: str = Field("v1", description="Experiment label, recorded with every run.")
    model_name: str | None = Field(
        None,
        description="provider:model for init_chat_model; None = the app's model "
        "(RELAIS_MODEL / Mistral).",
    )
    temperature: float = Field(1.0, ge=0.0, le=2.0)
    max_tokens: int = Field(4096, ge=64)
    max_retries: int = Field(
        10, ge=1, description="Attempts per LLM node (tenacity stop_after_attempt)."
    )
    retry_multiplier: float = Field(2.0, ge=0.0)
    retry_wait_min: float = Field(4.0, ge=0.0)
    retry_wait_max: float = Field(60.0, ge=0.0)
    call_timeout_s: float | None = Field(
        180.0, gt=0, description="Per-call timeout; a timeout is retried like a provider error."
    )
    thinking_budget: int = Field(
        2048, ge=64, description="max_tokens of the Thinking node (its private scratchpad)."
    )
    rounds: int = Field(3, ge=1, le=50)
    refinement_cap: int = Field(
        3, ge=1, description="Max Persona→Thinking→Critique passes per argument before loop-lock."
    )

    @field_validator("model_name", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    def retry_policy(self) -> RetryPolicy:
        """The tenacity policy every LLM node runs under (`retry_on` is set by the caller)."""
        return RetryPolicy(
            max_attempts=self.max_retries,
            multiplier=self.retry_multiplier,
            wait_min=self.retry_wait_min,
            wait_max=self.retry_wait_max,
        )

    @classmethod
    def load(
        cls,
        path: str | Path | None = None,
        *,
        env: Mapping[str, str] | None = None,
        dotenv: str | Path | None = ".env",
        **overrides: Any,
    ) -> DebateConfig:
        """Merge defaults, file, `.env`, environment and non-None overrides (in that order)."""
        environ = dict(os.environ if env is None else env)
        if dotenv is not None and Path(dotenv).is_file():
            file_env = {k: v for k, v in dotenv_values(dotenv).items() if v is not None}
            environ = {**file_env, **environ}
        path = path or environ.get(CONFIG_FILE_ENV) or None
        data: dict[str, Any] = read_config_file(Path(path)) if path else {}
        for name in cls.model_fields:
            key = ENV_PREFIX + name.upper()
            if key in environ:
                data[name] = environ[key]
        data.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(data)


def read_config_file(path: Path) -> dict[str, Any]:
    """A YAML or JSON mapping; unknown keys are rejected by `DebateConfig` (typos fail loudly)."""
    text = path.read_text(encoding="utf-8")
    data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(
            f"{path}: expected a mapping of debate settings, got {type(data).__name__}"
        )
    section = data.get("debate")  # a shared config file may nest our keys under `debate:`
    return dict(section) if isinstance(section, dict) else dict(data)
