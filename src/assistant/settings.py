"""The assistant's settings: the NORMAL/ALTER switch, the intent classifier and the external agent's client."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr

from relais.settings import BlankIsNone, PackageSettings, cached_settings


class AssistantSettings(PackageSettings):
    """Settings of `assistant` (the agent's shared token is the kit's: the coach service reads it too)."""

    enable_orchestrator: bool = False  # the one reading of ENABLE_ORCHESTRATOR: classify and hand off
    relais_intents_file: Path = Field(
        Path("data/intents/examples.yaml"), description="Few-shot NORMAL/ALTER examples."
    )
    intent_detection_prompt: str | None = None
    intent_threshold: float = 0.05  # the confidence margin ALTER must win by (offline)
    intent_min_similarity: float = 0.3  # ALTER also needs an ALTER example at least this close

    external_agent_url: str = "http://127.0.0.1:8081"
    external_agent_connect_timeout_s: float = 5.0
    external_agent_read_timeout_s: float = 60.0
    external_agent_max_event_bytes: int = 1_000_000
    external_agent_protocol: Literal["relais", "langgraph"] = Field(
        "relais", description="relais: POST /assistant + SSE (seed 004); langgraph: the LangGraph Server API."
    )
    external_agent_assistant: str = Field(
        "agent", description="LangGraph protocol: the assistant (graph id or assistant id) threads run on."
    )
    external_agent_api_key: Annotated[SecretStr | None, BlankIsNone] = Field(
        None, description="LangGraph protocol: sent as x-api-key (LangGraph Platform); the token goes as a bearer."
    )


assistant_settings = cached_settings(AssistantSettings)
"""The process-wide assistant settings (cached; tests call `relais.settings.clear_settings_caches()`)."""
