"""Which sentence encoder a knowledge base uses when `RELAIS_EMBEDDING_MODEL=auto` (the default).

MiniLM is English-only: on French text its cosines bunch together (any French sentence scores
0.35-0.55 against any other), so the relevance bar can only lean on shared words. The packaged
multilingual USE encoder has the same retrieval quality on the French CNIL FAQ (hybrid nDCG@10
0.643 vs 0.641) but tells on-topic from off-topic French questions better (33 vs 27 of 44 right
or honestly declined on a 40-article CNIL sample, 0/20 off-topic answered by either). So:
- the first ingest picks `use-multilingual` when most chunks are not English, else `minilm`;
- the choice is recorded in the collection's metadata and every later process reads it back,
  so the index never mixes vectors of two models (an explicit setting still wins, and changing
  it re-indexes, as before).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from knowledge.settings import KnowledgeSettings
from knowledge.store import chroma_client
from relais.embeddings import DEFAULT_MODEL

MULTILINGUAL = "use-multilingual"
NON_ENGLISH_SHARE = 0.5  # above this share of non-English chunks, the multilingual encoder


def choose_for_languages(languages: Iterable[str]) -> str:
    """The encoder for a knowledge base whose chunks are in `languages` (one code per chunk)."""
    counts = Counter(languages)
    total = sum(counts.values())
    if total and (total - counts.get("en", 0)) / total > NON_ENGLISH_SHARE:
        return MULTILINGUAL
    return DEFAULT_MODEL


def indexed_model(settings: KnowledgeSettings, client: Any = None) -> str | None:
    """The encoder the existing collection was built with, if there is one."""
    try:
        collection = (client or chroma_client(settings)).get_collection(settings.relais_collection)
    except Exception:  # noqa: BLE001 - no collection (or no store yet): nothing recorded
        return None
    name = (collection.metadata or {}).get("embedder")
    return str(name) if name else None


def resolve_model(settings: KnowledgeSettings, client: Any = None) -> str:
    """The encoder to open the knowledge base with: the setting, or for `auto` the recorded choice."""
    return settings.chosen_encoder or indexed_model(settings, client) or DEFAULT_MODEL


def configured_model(settings: KnowledgeSettings) -> str:
    """The encoder before any document is known: the setting, or for `auto` the default one."""
    return settings.chosen_encoder or DEFAULT_MODEL
