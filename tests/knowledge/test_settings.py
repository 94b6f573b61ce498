"""The knowledge base's settings: its variables, its paths under the kit's data folder, `auto`."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.encoder_choice import configured_model, resolve_model
from knowledge.settings import KnowledgeSettings, knowledge_settings
from relais.settings import Settings, clear_settings_caches


def test_env_and_dotenv_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("RETRIEVAL_TOP_K=7\nCHUNK_SIZE=300\nCHROMA_HOST=\n")
    monkeypatch.setenv("RETRIEVAL_TOP_K", "9")  # the environment wins over .env
    settings = KnowledgeSettings()
    assert (settings.retrieval_top_k, settings.chunk_size, settings.chroma_host) == (9, 300, None)


def test_paths_stand_in_the_kits_data_folder(tmp_path: Path, isolated_settings: Path) -> None:
    assert knowledge_settings().chroma_dir == isolated_settings.resolve() / "chroma"
    placed = KnowledgeSettings().on(Settings(relais_data_dir=tmp_path / "elsewhere"))
    assert placed.lexical_dir == (tmp_path / "elsewhere").resolve() / "lexical"


def test_extensions_map_to_a_builtin_loader() -> None:
    settings = KnowledgeSettings(relais_kb_extensions="mdoc=md, .ADOC = .txt, broken, =md")
    assert settings.kb_extensions == {".mdoc": ".md", ".adoc": ".txt"}


def test_auto_means_the_documents_decide(tmp_path: Path) -> None:
    auto = KnowledgeSettings().on(Settings(relais_data_dir=tmp_path / "empty"))
    assert auto.chosen_encoder is None
    assert configured_model(auto) == resolve_model(auto) == "minilm"  # nothing indexed yet: the default
    named = KnowledgeSettings(relais_embedding_model="use-multilingual")
    assert named.chosen_encoder == configured_model(named) == resolve_model(named) == "use-multilingual"


def test_the_cached_instance_follows_a_cleared_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert knowledge_settings() is knowledge_settings()
    monkeypatch.setenv("RELAIS_COLLECTION", "other_kb")
    clear_settings_caches()
    assert knowledge_settings().relais_collection == "other_kb"
