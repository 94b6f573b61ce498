"""The kit's settings (what several packages share) and the mechanism every package's settings use.

Each package that has settings of its own keeps them in `<package>/settings.py`: a `PackageSettings`
class with only its fields, read through an accessor made by `cached_settings`. Every class reads the
environment and `.env` the same way; one variable has one owner (tests/relais/test_settings.py).
Defaults run offline with no API key; every variable is listed in `.env.example` and the README.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Literal, Self, TypeVar

from pydantic import Field, PrivateAttr, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def blank_is_none(value: object) -> object:
    """An empty or blank value means unset (a `.env` line `KEY=` left empty)."""
    return None if isinstance(value, str) and not value.strip() else value


class SettingsBase(BaseSettings):
    """How every Relais settings class reads its values: field names map to upper-case environment
    variables, also read from `.env` (the environment wins)."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", populate_by_name=True
    )

    def secret_values(self) -> list[str]:
        """The secrets this class holds (its `SecretStr` fields), so logs and receipts can be scrubbed."""
        values = [getattr(self, name) for name in type(self).model_fields]
        return [v.get_secret_value() for v in values if isinstance(v, SecretStr) and v.get_secret_value()]


class Settings(SettingsBase):
    """The settings several packages share: the data folder, the chat model, the databases, the agent
    protocol's shared token, logging and tracing."""

    # --- local state and content -------------------------------------------------------
    relais_data_dir: Path = Field(Path(".relais"), description="All local state lives here.")
    relais_kb_dir: Path = Field(Path("data/knowledge"), description="Knowledge base folder.")
    relais_intents_file: Path = Field(
        Path("data/intents/examples.yaml"), description="Few-shot NORMAL/ALTER examples."
    )
    relais_log_level: str = "INFO"

    # --- models -------------------------------------------------------------------------
    mistral_api_key: SecretStr | None = None
    mistral_model: str = "mistral-small-latest"
    relais_model: str | None = Field(None, description="Any init_chat_model id: provider:model.")
    relais_temperature: float = 0.0
    llm_timeout_s: float = 60.0
    llm_max_retries: int = 3
    relais_embedding_model: Literal["auto", "minilm", "use-multilingual"] = "auto"
    relais_query_languages: str = Field(
        "en,fr", description="Languages people ask in (default: the UI's); others than the encoder reads get a multilingual index."
    )

    # --- knowledge base -------------------------------------------------------------------
    chroma_host: str | None = None
    chroma_port: int = 8000
    relais_collection: str = "relais_kb"
    retrieval_mode: Literal["hybrid", "dense", "bm25"] = "hybrid"
    retrieval_top_k: int = 5
    retrieval_min_score: float = 0.25
    retrieval_min_margin: float = 0.2
    retrieval_fusion: Literal["convex", "rrf"] = "convex"
    retrieval_dense_weight: float = 0.6
    retrieval_lexical_weight: float = 0.4
    retrieval_normalise: Literal["max", "minmax", "zscore"] = "max"
    retrieval_rrf_k: float = 60.0
    retrieval_depth: int = 100
    chunk_size: int = 900
    chunk_overlap: int = 150
    max_file_mb: float = 10.0
    relais_kb_extensions: str = Field(
        "", description="More file suffixes mapped to a built-in loader: '.mdoc=.md,.adoc=.txt'."
    )
    max_question_chars: int = 4000
    relais_query_batch_ms: float = Field(
        4.0, description="Micro-batching window for concurrent question encodings (ms); 0 = off."
    )
    relais_warm_start: bool = Field(
        True, description="Load encoders, Chroma and BM25 at app start, before /relais/ready says ready."
    )
    relais_prefill_budget_s: float = Field(
        0.0, description="Seconds an ingest may spend encoding the answer composer's sentences in advance; "
        "0 = off (the app encodes them in the background once its warm start is done).",
    )

    # --- orchestrator ---------------------------------------------------------------------
    enable_orchestrator: bool = False
    external_agent_url: str = "http://127.0.0.1:8081"
    external_agent_token: SecretStr | None = None
    external_agent_connect_timeout_s: float = 5.0
    external_agent_read_timeout_s: float = 60.0
    external_agent_max_event_bytes: int = 1_000_000
    external_agent_protocol: Literal["relais", "langgraph"] = Field(
        "relais", description="relais: POST /assistant + SSE (seed 004); langgraph: the LangGraph Server API."
    )
    external_agent_assistant: str = Field(
        "agent", description="LangGraph protocol: the assistant (graph id or assistant id) threads run on."
    )
    external_agent_api_key: SecretStr | None = Field(
        None, description="LangGraph protocol: sent as x-api-key (LangGraph Platform); the token goes as a bearer."
    )
    booking_db_path: Path | None = Field(None, description="The booking agent's store (default <data dir>/bookings.db).")
    intent_detection_prompt: str | None = None
    intent_threshold: float = 0.05  # the confidence margin ALTER must win by (offline)
    intent_min_similarity: float = 0.3  # ALTER also needs an ALTER example at least this close

    # --- persistence ----------------------------------------------------------------------
    database_url: str | None = Field(None, description="Chainlit data layer; default SQLite.")
    checkpoint_url: str | None = Field(None, description="LangGraph checkpointer; default SQLite.")

    # --- app and auth ---------------------------------------------------------------------
    app_host: str = "127.0.0.1"
    app_port: int = 8000
    chainlit_auth_secret: SecretStr | None = None
    relais_api_token: SecretStr | None = Field(
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

    # --- agent service --------------------------------------------------------------------
    agent_host: str = "127.0.0.1"
    agent_port: int = 8081
    agent_allowed_origins: str = ""
    agent_max_message_chars: int = 20000
    agent_rate_limit_per_minute: int = 120
    coach_interrupt_ttl_s: int = 86400

    # --- tracing (OpenTelemetry; off unless an endpoint is set) -----------------------------
    otel_exporter_otlp_endpoint: str | None = Field(
        None, description="OTLP/HTTP collector base URL (spans go to {url}/v1/traces); unset: no tracing."
    )
    otel_exporter_otlp_headers: SecretStr | None = Field(
        None, description="Headers for the collector, 'key=value,key2=value2' (e.g. an Authorization)."
    )

    @field_validator("mistral_api_key", "external_agent_token", "chainlit_auth_secret", "relais_api_token",
                     "external_agent_api_key", "relais_model", "chroma_host", "database_url", "checkpoint_url",
                     "booking_db_path", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return blank_is_none(value)

    # --- derived paths --------------------------------------------------------------------
    @property
    def data_dir(self) -> Path:
        return self.relais_data_dir.expanduser().resolve()

    @property
    def chainlit_db_url(self) -> str:
        """SQLAlchemy URL of the Chainlit data layer (async driver)."""
        if self.database_url:
            url = self.database_url
            if url.startswith("postgresql://") or url.startswith("postgres://"):
                url = "postgresql+asyncpg://" + url.split("://", 1)[1]
            return url
        return f"sqlite+aiosqlite:///{self.data_dir / 'chainlit.db'}"

    @property
    def checkpoint_target(self) -> str:
        """LangGraph checkpoint location: a Postgres URL or a SQLite file path."""
        url = self.checkpoint_url or self.database_url
        if url and url.startswith(("postgresql", "postgres")):
            return url.replace("postgresql+asyncpg://", "postgresql://")
        if self.checkpoint_url:
            return self.checkpoint_url
        return str(self.data_dir / "checkpoints.db")

    @property
    def receipts_db_url(self) -> str:
        """Synchronous SQLAlchemy URL of the chat database, where handoff receipts are kept
        (same database as `chainlit_db_url`, so every instance reads the same receipts)."""
        url = self.chainlit_db_url
        return url.replace("sqlite+aiosqlite://", "sqlite://", 1).replace(
            "postgresql+asyncpg://", "postgresql+psycopg://", 1
        )

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def lexical_dir(self) -> Path:
        return self.data_dir / "lexical"

    @property
    def kb_extensions(self) -> dict[str, str]:
        """RELAIS_KB_EXTENSIONS as {'.mdoc': '.md'} (suffixes lower-cased, dots added)."""
        mapping: dict[str, str] = {}
        for item in self.relais_kb_extensions.split(","):
            if "=" in item:
                extra, builtin = (part.strip().lower() for part in item.split("=", 1))
                if extra and builtin:
                    mapping["." + extra.lstrip(".")] = "." + builtin.lstrip(".")
        return mapping

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
        values = [v for v in super().secret_values() if v != self.relais_users.get_secret_value()]
        values += [p for p in self.users.values() if len(p) >= 4]
        if self.otel_exporter_otlp_headers is not None:  # collector credentials, value by value
            values += [pair.split("=", 1)[-1].strip() for pair in self.otel_exporter_otlp_headers.get_secret_value().split(",")]
        return [v for v in values if v]


class PackageSettings(SettingsBase):
    """A package's own settings, standing on the kit's shared ones (`kit`: the process's, unless
    `on(...)` placed them on others, e.g. a test's or an evaluation's data folder)."""

    _kit: Settings | None = PrivateAttr(None)

    @property
    def kit(self) -> Settings:
        return self._kit if self._kit is not None else get_settings()

    @property
    def data_dir(self) -> Path:
        return self.kit.data_dir

    def on(self, kit: Settings) -> Self:
        """A copy of these settings standing on `kit`."""
        bound = self.model_copy()
        bound._kit = kit
        return bound

    def secret_values(self) -> list[str]:
        return super().secret_values() + (self._kit.secret_values() if self._kit is not None else [])


S = TypeVar("S", bound=SettingsBase)
_ACCESSORS: dict[type[SettingsBase], Callable[[], SettingsBase]] = {}


def cached_settings(cls: type[S]) -> Callable[[], S]:
    """The accessor of `cls`'s process-wide instance, read once; `clear_settings_caches` forgets it."""

    @lru_cache(maxsize=1)
    def accessor() -> S:
        return cls()

    _ACCESSORS[cls] = accessor
    return accessor


def clear_settings_caches() -> None:
    """Forget every settings instance read so far, the kit's and every package's (tests that change
    the environment call this, so the change is seen everywhere)."""
    for accessor in _ACCESSORS.values():
        accessor.cache_clear()  # type: ignore[attr-defined]


def settings_classes() -> list[type[SettingsBase]]:
    """The settings classes loaded in this process (a package's registers when its module is imported)."""
    return list(_ACCESSORS)


def secret_values(*given: SettingsBase) -> list[str]:
    """Every configured secret of the settings loaded in this process, and of `given` (instances a
    caller built itself), so logs and receipts can be scrubbed of them."""
    values = [v for settings in (*given, *(a() for a in _ACCESSORS.values())) for v in settings.secret_values()]
    return list(dict.fromkeys(values))


get_settings = cached_settings(Settings)
"""The process-wide kit settings (cached; tests call `clear_settings_caches()`)."""
