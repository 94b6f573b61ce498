"""The coach's settings: its agent service's limits and how long its questions wait."""

from __future__ import annotations

from relais.settings import PackageSettings, cached_settings


class CoachSettings(PackageSettings):
    """Settings of `coach` (the shared token the service requires is the kit's: `kit.external_agent_token`)."""

    agent_allowed_origins: str = ""
    agent_max_message_chars: int = 20000
    agent_rate_limit_per_minute: int = 120
    coach_interrupt_ttl_s: int = 86400


coach_settings = cached_settings(CoachSettings)
"""The process-wide coach settings (cached; tests call `relais.settings.clear_settings_caches()`)."""
