"""Questions asked in another language than the documents are written in.

MiniLM, the default encoder of an English knowledge base, is English-only: a French question
scores ~0.0 against its English answer, so French questions on English docs found nothing
(0 of 5). Switching the whole knowledge base to the multilingual encoder would fix that but
change every English answer. Instead, when people may ask in a language the main encoder does
not read (`RELAIS_QUERY_LANGUAGES`, default the UI's languages: en,fr), ingest keeps a second,
multilingual vector set of the same chunks (`<collection>_xl`, packaged USE encoder, ~70
chunks/s), and a question whose language is not one the documents are written in is searched
there. Same-language questions take exactly the path they took before.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from relais.embeddings import Embedder, get_embedder
from relais.settings import Settings

from knowledge.chunking import Chunk
from knowledge.embedding_cache import embed_texts
from knowledge.store import ChromaStore, StoredHit, open_store

MULTILINGUAL = "use-multilingual"
# The languages each packaged encoder reads; a question in another one goes to the cross index.
ENCODER_LANGUAGES = {"minilm": {"en"}, MULTILINGUAL: None}  # None: every language
# Cross-language cosines run lower (a right answer 0.26-0.43, unrelated text ~0.1 here), so the
# relevance margin above the question's baseline is halved on this path (measured on the docs
# test corpus: 12 French questions on English pages, see tests/knowledge/test_cross_language.py).
CROSS_LANGUAGE_MARGIN_SCALE = 0.5
DOCUMENT_LANGUAGE_SHARE = 0.2  # a language counts as "the documents' language" above this share


def query_languages(settings: Settings) -> set[str]:
    return {lang.strip().lower() for lang in settings.relais_query_languages.split(",") if lang.strip()}


def needs_cross_index(settings: Settings, encoder: str, documents: set[str] | None = None) -> bool:
    """True when some expected question language is one `encoder` does not read and (when
    `documents` is given) not one the documents are written in: a bilingual knowledge base
    answers each language from its own articles."""
    readable = ENCODER_LANGUAGES.get(encoder, None)
    if readable is None:
        return False
    return bool(query_languages(settings) - readable - (documents or set()))


def document_languages(centroids: dict[str, dict[str, Any]]) -> set[str]:
    """Languages that make up a real share of the chunks (from the lexical index's stats)."""
    total = sum(int(stats["count"]) for stats in centroids.values()) or 1
    return {lang for lang, stats in centroids.items() if int(stats["count"]) / total >= DOCUMENT_LANGUAGE_SHARE}


class CrossLanguageIndex:
    """The multilingual twin of the knowledge-base collection: same ids, same metadata."""

    def __init__(self, settings: Settings, client: Any = None, embedder: Embedder | None = None) -> None:
        self.embedder = embedder or get_embedder(MULTILINGUAL)
        self.store: ChromaStore = open_store(settings, self.embedder.name, self.embedder.dim,
                                             name=f"{settings.relais_collection}_xl", client=client)
        self._centroid: tuple[int, np.ndarray] | None = None

    def count(self) -> int:
        return self.store.count()

    def write(self, ids: Sequence[str], index_texts: Sequence[str], documents: Sequence[str],
              metadatas: Sequence[dict[str, Any]], cache_dir: Path | None) -> None:
        if not ids:
            return
        vectors = embed_texts(self.embedder, list(index_texts), cache_dir, description="Embedding (cross-language)")
        self.store.upsert(list(ids), vectors, list(documents), list(metadatas))
        self._centroid = None

    def sync(self, main: ChromaStore, written: Sequence[Chunk], metadatas: Sequence[dict[str, Any]],
             cache_dir: Path | None) -> None:
        """Mirror the main collection: this run's chunks (re)written, chunks it no longer has
        deleted, and any it has that are missing here (an index built before) embedded."""
        self.write([c.id for c in written], [c.index_text for c in written], [c.text for c in written],
                   metadatas, cache_dir)
        main_ids, own_ids = set(main.ids()), set(self.store.ids())
        self.delete(sorted(own_ids - main_ids))
        missing = main_ids - own_ids
        if missing:
            ids, documents, metas = main.items()
            rows = [(i, d, m) for i, d, m in zip(ids, documents, metas) if i in missing]
            chunks = [Chunk(d, str(m.get("source", "")), str(m.get("title", "")), str(m.get("section", "")),
                            int(m.get("chunk_index", 0)), str(m.get("language", "en"))) for _, d, m in rows]
            self.write([i for i, _, _ in rows], [c.index_text for c in chunks], [c.text for c in chunks],
                       [m for _, _, m in rows], cache_dir)

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self.store.delete(list(ids))
            self._centroid = None

    def reset(self) -> None:
        self.store.reset()
        self._centroid = None

    def embed_query(self, question: str) -> np.ndarray:
        return self.embedder.embed_query(question)

    def query(self, vector: np.ndarray, depth: int) -> list[StoredHit]:
        return self.store.query(vector, depth)

    def bar(self, vector: np.ndarray, margin: float) -> float:
        """The cosine a chunk must reach to count as relevant to the question `vector`."""
        return self.baseline(vector) + margin * CROSS_LANGUAGE_MARGIN_SCALE

    def baseline(self, vector: np.ndarray) -> float:
        """The question's mean cosine to every chunk: what "unrelated" scores here."""
        count = self.store.count()
        if self._centroid is None or self._centroid[0] != count:
            _, matrix, _ = self.store.all_embeddings()
            mean = matrix.mean(axis=0) if len(matrix) else np.zeros(self.embedder.dim, dtype=np.float32)
            self._centroid = (count, mean.astype(np.float32))
        return float(np.dot(self._centroid[1], vector))
