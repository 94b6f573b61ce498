"""The chat app's settings: where it listens, who may log in, the login limits, the edge and the warm start."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, SecretStr

from relais.settings import BlankIsNone, PackageSettings, cached_settings


class ChatbotSettings(PackageSettings):
    """Settings of `chatbot` (the databases and the data folder are the kit's: `kit`)."""

    app_host: str = "127.0.0.1"
    app_port: int = 8000
    chainlit_auth_secret: Annotated[SecretStr | None, BlankIsNone] = None
    relais_api_token: Annotated[SecretStr | None, BlankIsNone] = Field(
        None, description="Bearer token of POST /relais/api/ask; default: generated in RELAIS_DATA_DIR."
    )
    relais_users: SecretStr = Field(
        SecretStr("demo:relais"), description="Comma-separated user:password pairs."
    )
    relais_admins: str = Field(
        "", description="Comma-separated user identifiers allowed on the /admin pages."
    )
    relais_audit_in_chat: bool = Field(
        False, description="Show a 'Handoff audit' step in the chat (demos); operators use /admin."
    )
    relais_trusted_proxies: str = Field(
        "", description="Proxies (IPs/CIDRs, comma-separated) whose X-Forwarded-For/-Proto are honoured."
    )
    relais_login_max_failures: int = Field(10, description="Failed logins per username before a lock.")
    relais_login_max_failures_per_address: int = Field(
        50, description="Failed logins per client address before a lock."
    )
    relais_login_lock_minutes: float = Field(15.0, description="How long a lock lasts; also the counting window.")
    relais_login_backoff_s: float = Field(1.0, description="First wait once failures pile up; doubles each time.")
    relais_instance_url: str | None = Field(
        None, description="This instance's address as other instances reach it (behind a load balancer)."
    )
    relais_action_wait_s: float = Field(
        15.0, description="How long a button click waits for its browser session to (re)connect before "
        "the page is told it was not delivered."
    )
    relais_warm_start: bool = Field(
        True, description="Load encoders, Chroma and BM25 at app start, before /relais/ready says ready."
    )

    @property
    def admins(self) -> frozenset[str]:
        """User identifiers with the admin role (from `RELAIS_ADMINS`)."""
        return frozenset(n.strip() for n in self.relais_admins.split(",") if n.strip())

    @property
    def users(self) -> dict[str, str]:
        pairs: dict[str, str] = {}
        for item in self.relais_users.get_secret_value().split(","):
            if ":" in item:
                user, password = item.split(":", 1)
                if user.strip():
                    pairs[user.strip()] = password
        return pairs

    def secret_values(self) -> list[str]:
        """The tokens, and each password (not the RELAIS_USERS line as a whole)."""
        values = [v for v in super().secret_values() if v != self.relais_users.get_secret_value()]
        return values + [p for p in self.users.values() if len(p) >= 4]


chatbot_settings = cached_settings(ChatbotSettings)
"""The process-wide chat-app settings (cached; tests call `relais.settings.clear_settings_caches()`)."""
