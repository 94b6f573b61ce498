"""Settings: defaults run offline, env and .env are read, every variable is documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from relais.models import OFFLINE, chat_model, engine_info
from relais.settings import Settings, get_settings
from tests.conftest import REPO_ROOT


def test_defaults_are_offline_and_local(isolated_settings: Path) -> None:
    settings = get_settings()
    assert engine_info(settings).kind == OFFLINE
    assert chat_model(settings) is None
    assert settings.data_dir == isolated_settings.resolve()
    assert settings.chainlit_db_url == f"sqlite+aiosqlite:///{isolated_settings.resolve() / 'chainlit.db'}"
    assert settings.checkpoint_target == str(isolated_settings.resolve() / "checkpoints.db")
    assert settings.enable_orchestrator is False


def test_dotenv_and_env_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("ENABLE_ORCHESTRATOR=true\nRETRIEVAL_TOP_K=7\nRELAIS_USERS=a:secret1,b:secret2\n")
    monkeypatch.setenv("RETRIEVAL_TOP_K", "9")  # the environment wins over .env
    settings = Settings()
    assert settings.enable_orchestrator is True
    assert settings.retrieval_top_k == 9
    assert settings.users == {"a": "secret1", "b": "secret2"}


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
    monkeypatch.setenv("CHROMA_HOST", "")
    settings = Settings()
    assert settings.mistral_api_key is None and settings.chroma_host is None


def test_env_example_documents_every_setting() -> None:
    text = (REPO_ROOT / ".env.example").read_text()
    documented = {line.split("=", 1)[0] for line in text.splitlines() if line and not line.startswith("#") and "=" in line}
    from debate.config import CONFIG_FILE_ENV, ENV_PREFIX, DebateConfig

    expected = {name.upper() for name in Settings.model_fields}
    expected |= {ENV_PREFIX + name.upper() for name in DebateConfig.model_fields} | {CONFIG_FILE_ENV}
    assert expected <= documented, f"missing from .env.example: {sorted(expected - documented)}"
    assert documented <= expected, f"unknown in .env.example: {sorted(documented - expected)}"
