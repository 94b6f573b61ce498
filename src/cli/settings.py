"""The command line's settings: where `relais agent serve` listens."""

from __future__ import annotations

from relais.settings import PackageSettings, cached_settings


class CliSettings(PackageSettings):
    """Settings of `cli` (the app's own address is the chat app's: `chatbot.settings`)."""

    agent_host: str = "127.0.0.1"
    agent_port: int = 8081


cli_settings = cached_settings(CliSettings)
"""The process-wide command-line settings (cached; tests call `relais.settings.clear_settings_caches()`)."""
