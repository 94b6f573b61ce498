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
from typing import Annotated, Any, Self, TypeVar

from pydantic import BeforeValidator, Field, PrivateAttr, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def blank_is_none(value: object) -> object:
    """An empty or blank value means unset (a `.env` line `KEY=` left empty)."""
    return None if isinstance(value, str) and not value.strip() else value


BlankIsNone = BeforeValidator(blank_is_none)  # `Annotated[str | None, BlankIsNone]`: `KEY=` is unset


class SettingsBase(BaseSettings):
    """How every Relais settings class reads its values: field names map to upper-case environment
    variables, also read from `.env` (the environment wins)."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", populate_by_name=True
    )

    def __init__(self, **values: Any) -> None:
        # `.env` lines of other classes are ignored, but a value passed here must be one of this
        # class's own: a setting passed to the wrong class would otherwise vanish without a word.
        unknown = sorted(k for k in values if not k.startswith("_") and k.lower() not in type(self).model_fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no setting {', '.join(unknown)}")
        super().__init__(**values)

    def secret_values(self) -> list[str]:
        """The secrets this class holds (its `SecretStr` fields), so logs and receipts can be scrubbed."""
        values = [getattr(self, name) for name in type(self).model_fields]
        return [v.get_secret_value() for v in values if isinstance(v, SecretStr) and v.get_secret_value()]


class Settings(SettingsBase):
    """The settings several packages share: the data folder, the chat model, the databases, the agent
    protocol's shared token, logging and tracing."""

    # --- local state ------------------------------------------------------------------------
    relais_data_dir: Path = Field(Path(".relais"), description="All local state lives here.")
    relais_log_level: str = "INFO"

    # --- models -------------------------------------------------------------------------
    mistral_api_key: Annotated[SecretStr | None, BlankIsNone] = None
    mistral_model: str = "mistral-small-latest"
    relais_model: Annotated[str | None, BlankIsNone] = Field(None, description="Any init_chat_model id: provider:model.")
    relais_temperature: float = 0.0
    llm_timeout_s: float = 60.0
    llm_max_retries: int = 3
    relais_query_batch_ms: float = Field(
        4.0, description="Micro-batching window for concurrent question encodings (ms); 0 = off."
    )

    # --- persistence ----------------------------------------------------------------------
    database_url: Annotated[str | None, BlankIsNone] = Field(None, description="Chainlit data layer; default SQLite.")
    checkpoint_url: Annotated[str | None, BlankIsNone] = Field(None, description="LangGraph checkpointer; default SQLite.")

    # --- the agent protocol: its client (assistant) and its service (coach) share the token ---
    external_agent_token: Annotated[SecretStr | None, BlankIsNone] = None

    # --- tracing (OpenTelemetry; off unless an endpoint is set) -----------------------------
    otel_exporter_otlp_endpoint: str | None = Field(
        None, description="OTLP/HTTP collector base URL (spans go to {url}/v1/traces); unset: no tracing."
    )
    otel_exporter_otlp_headers: SecretStr | None = Field(
        None, description="Headers for the collector, 'key=value,key2=value2' (e.g. an Authorization)."
    )

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

    def secret_values(self) -> list[str]:
        values = super().secret_values()
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
