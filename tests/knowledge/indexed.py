"""A knowledge base indexed from a folder into its own data dir, for tests that compare settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from knowledge.ingest import ingest_folder
from knowledge.retrieval import KnowledgeBase
from knowledge.settings import KnowledgeSettings
from relais.settings import Settings


def indexed_kb(folder: Path, data: Path, languages: str, **settings: Any) -> KnowledgeBase:
    """`folder` ingested into `data` with `languages` as the expected question languages."""
    config = KnowledgeSettings(relais_kb_dir=folder, relais_query_languages=languages, **settings).on(
        Settings(relais_data_dir=data))
    kb = KnowledgeBase(config)
    ingest_folder(folder, config, show_progress=False, kb=kb)
    return kb
