"""Settings: defaults run offline, env and .env are read, one owner per variable, every variable documented."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from pydantic import SecretStr

from relais.models import OFFLINE, chat_model, engine_info
from relais.settings import (
    PackageSettings,
    Settings,
    SettingsBase,
    cached_settings,
    clear_settings_caches,
    get_settings,
    secret_values,
    settings_classes,
)
from tests.conftest import REPO_ROOT


def every_settings_class() -> list[type[SettingsBase]]:
    """The kit's class and every package's (each `src/<package>/settings.py` is imported)."""
    for module in sorted((REPO_ROOT / "src").glob("*/settings.py")):
        importlib.import_module(f"{module.parent.name}.settings")
    return [cls for cls in settings_classes() if cls.__module__.split(".")[0] in _packages()]


def _packages() -> set[str]:
    return {path.name for path in (REPO_ROOT / "src").iterdir() if path.is_dir()}


def env_names(cls: type) -> set[str]:
    prefix = cls.model_config.get("env_prefix") or ""
    return {(prefix + name).upper() for name in cls.model_fields}


def debate_env_names() -> set[str]:
    """The debate's config reads its own `DEBATE_*` variables (a YAML file may set them too)."""
    from debate.config import CONFIG_FILE_ENV, ENV_PREFIX, DebateConfig

    return {ENV_PREFIX + name.upper() for name in DebateConfig.model_fields} | {CONFIG_FILE_ENV}


def test_defaults_are_offline_and_local(isolated_settings: Path) -> None:
    settings = get_settings()
    assert engine_info(settings).kind == OFFLINE
    assert chat_model(settings) is None
    assert settings.data_dir == isolated_settings.resolve()
    assert settings.chainlit_db_url == f"sqlite+aiosqlite:///{isolated_settings.resolve() / 'chainlit.db'}"
    assert settings.checkpoint_target == str(isolated_settings.resolve() / "checkpoints.db")


def test_dotenv_and_env_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("LLM_MAX_RETRIES=7\nRELAIS_LOG_LEVEL=DEBUG\n")
    monkeypatch.setenv("LLM_MAX_RETRIES", "9")  # the environment wins over .env
    settings = Settings()
    assert settings.llm_max_retries == 9
    assert settings.relais_log_level == "DEBUG"


def test_postgres_urls_are_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:p@127.0.0.1:5432/relais")
    settings = Settings()
    assert settings.chainlit_db_url == "postgresql+asyncpg://u:p@127.0.0.1:5432/relais"
    assert settings.checkpoint_target == "postgresql://u:p@127.0.0.1:5432/relais"


def test_engine_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAIS_MODEL", "openai:gpt-4o-mini")
    assert engine_info(Settings()).label == "init_chat_model:openai:gpt-4o-mini"
    monkeypatch.setenv("MISTRAL_API_KEY", "sk-test")
    assert engine_info(Settings()).kind == "mistral"  # a Mistral key wins
    model = chat_model(Settings())
    assert type(model).__name__ == "ChatMistralAI" and model.temperature == 0.0


def test_blank_values_mean_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MISTRAL_API_KEY", " ")
    monkeypatch.setenv("DATABASE_URL", "")
    settings = Settings()
    assert settings.mistral_api_key is None and settings.database_url is None


def test_a_setting_passed_to_the_wrong_class_is_refused() -> None:
    with pytest.raises(TypeError, match="Settings has no setting retrieval_top_k"):
        Settings(retrieval_top_k=3)


class _Sample(PackageSettings):
    sample_token: SecretStr | None = None
    sample_size: int = 3


sample_settings = cached_settings(_Sample)


def test_one_call_clears_every_cached_class(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A test that changes the environment sees the change in the kit and in every package."""
    assert sample_settings().sample_size == 3 and sample_settings() is sample_settings()
    monkeypatch.setenv("SAMPLE_SIZE", "8")
    monkeypatch.setenv("RELAIS_DATA_DIR", str(tmp_path / "elsewhere"))
    clear_settings_caches()
    assert sample_settings().sample_size == 8
    assert sample_settings().data_dir == get_settings().data_dir == (tmp_path / "elsewhere").resolve()


def test_a_package_class_stands_on_the_kit_it_is_given(tmp_path: Path) -> None:
    placed = _Sample(sample_size=5).on(Settings(relais_data_dir=tmp_path / "other"))
    assert placed.data_dir == (tmp_path / "other").resolve() and placed.sample_size == 5
    assert placed.model_copy(update={"sample_size": 6}).data_dir == placed.data_dir  # copies keep it


def test_secrets_of_every_loaded_class_are_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAMPLE_TOKEN", "sample-secret-1")
    monkeypatch.setenv("MISTRAL_API_KEY", "sk-kit-secret")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Basic abc123")
    clear_settings_caches()
    values = secret_values()
    assert {"sample-secret-1", "sk-kit-secret", "Basic abc123"} <= set(values)
    given = _Sample(sample_token=SecretStr("given-secret")).on(Settings(mistral_api_key=SecretStr("given-key")))
    assert {"given-secret", "given-key"} <= set(secret_values(given))


def test_each_variable_has_one_owner() -> None:
    seen: dict[str, str] = {}
    for cls in every_settings_class():
        for name in env_names(cls):
            assert name not in seen, f"{name} is read by {seen[name]} and {cls.__qualname__}"
            seen[name] = cls.__qualname__
    for name in debate_env_names():
        assert name not in seen, f"{name} is read by {seen[name]} and the debate's config"
    assert len({cls.__module__ for cls in every_settings_class()}) >= 2  # the kit's and the packages'


def _readme_table_names() -> list[str]:
    """The variables named in the first column of the README's configuration table."""
    text = (REPO_ROOT / "README.md").read_text()
    section = text.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    names: list[str] = []
    for line in section.splitlines():
        if line.startswith("| `"):
            names += re.findall(r"`([A-Z][A-Z0-9_]+)`", line.split("|")[1])
    return names


def test_readme_lists_every_variable_once() -> None:
    listed = _readme_table_names()
    expected = set().union(*(env_names(cls) for cls in every_settings_class())) | debate_env_names()
    assert expected - set(listed) == set(), f"missing from the README's table: {sorted(expected - set(listed))}"
    assert set(listed) - expected == set(), f"in the README's table, read by no class: {sorted(set(listed) - expected)}"
    assert sorted(n for n in set(listed) if listed.count(n) > 1) == []


def test_env_example_documents_every_setting() -> None:
    text = (REPO_ROOT / ".env.example").read_text()
    documented = {line.split("=", 1)[0] for line in text.splitlines() if line and not line.startswith("#") and "=" in line}
    expected = set().union(*(env_names(cls) for cls in every_settings_class())) | debate_env_names()
    assert expected <= documented, f"missing from .env.example: {sorted(expected - documented)}"
    assert documented <= expected, f"unknown in .env.example: {sorted(documented - expected)}"
