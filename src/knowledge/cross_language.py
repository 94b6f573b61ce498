"""Questions asked in another language than the documents are written in.

MiniLM, the default encoder of an English knowledge base, is English-only: a French question
scores ~0.0 against its English answer, so French questions on English docs found nothing
(0 of 5). Switching the whole knowledge base to the multilingual encoder would fix that but
change every English answer. Instead, when people may ask in a language the main encoder does
not read (`RELAIS_QUERY_LANGUAGES`, default the UI's languages: en,fr), ingest keeps a second,
multilingual vector set of the same chunks (`<collection>_xl`, packaged USE encoder, ~70
chunks/s), and a question whose language is not one the documents are written in is searched
there. Questions in a language the main encoder reads take exactly the path they took before.

A bilingual knowledge base (English and French articles, MiniLM picked for the English majority)
keeps the twin too: MiniLM scores every French question ~0.3-0.45 against every French passage,
so its relevance bar turned away on-topic French questions (7 of 45 on the demo KB) and ranked
their passages poorly. A question in a language the main encoder does not read but the
documents are written in is searched in the twin among the chunks *of its own language* (each
language answers from its own articles), and judged against the twin's same-language baseline
(`same_language_bar`), calibrated like the main path's (`knowledge.calibration`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from knowledge.calibration import REFERENCE_SENTENCES, baseline_similarity
from knowledge.chunking import Chunk
from knowledge.embedding_cache import embed_texts
from knowledge.settings import KnowledgeSettings
from knowledge.store import ChromaStore, StoredHit, open_store
from relais.embeddings import Embedder, get_embedder

MULTILINGUAL = "use-multilingual"
# The languages each packaged encoder reads; a question in another one goes to the cross index.
ENCODER_LANGUAGES = {"minilm": {"en"}, MULTILINGUAL: None}  # None: every language
# Cross-language cosines run lower (a right answer 0.26-0.43, unrelated text ~0.1 here), so the
# relevance margin above the question's baseline is halved on this path (measured on the docs
# test corpus: 12 French questions on English pages, see tests/knowledge/test_cross_language.py).
CROSS_LANGUAGE_MARGIN_SCALE = 0.5
# Same-language cosines of the multilingual encoder, above the question's same-language baseline
# (its chunks in that language plus everyday reference sentences): on-topic French questions on
# the demo KB's French articles +0.19-0.49, unrelated French questions (recipes, capitals,
# films, weather) +0.07-0.14; the margin sits between them.
SAME_LANGUAGE_MARGIN_SCALE = 0.8
DOCUMENT_LANGUAGE_SHARE = 0.2  # a language counts as "the documents' language" above this share


def query_languages(settings: KnowledgeSettings) -> set[str]:
    return {lang.strip().lower() for lang in settings.relais_query_languages.split(",") if lang.strip()}


def reads(encoder: str, language: str) -> bool:
    """Whether `encoder` reads questions in `language` (unknown encoders are trusted)."""
    readable = ENCODER_LANGUAGES.get(encoder, None)
    return readable is None or language in readable


def cosine_scale(encoder: str) -> float:
    """How much lower `encoder`'s same-language cosines run than MiniLM's, whose scale the answer
    composer's relevance bar is set in (a French base read by the multilingual encoder: on-topic
    sentences 0.25-0.4 where MiniLM gives an English one 0.35-0.5)."""
    return SAME_LANGUAGE_MARGIN_SCALE if encoder == MULTILINGUAL else 1.0


def needs_cross_index(settings: KnowledgeSettings, encoder: str, documents: set[str] | None = None) -> bool:
    """True when some expected question language is one `encoder` does not read, whether or
    not some documents are written in it (`documents` is accepted for callers that pass it):
    the twin serves questions on articles in another language and, in a bilingual knowledge
    base, judges questions on articles of their own language that `encoder` reads poorly."""
    return any(not reads(encoder, lang) for lang in query_languages(settings))


def document_languages(centroids: dict[str, dict[str, Any]]) -> set[str]:
    """Languages that make up a real share of the chunks (from the lexical index's stats)."""
    total = sum(int(stats["count"]) for stats in centroids.values()) or 1
    return {lang for lang, stats in centroids.items() if int(stats["count"]) / total >= DOCUMENT_LANGUAGE_SHARE}


class CrossLanguageIndex:
    """The multilingual twin of the knowledge-base collection: same ids, same metadata."""

    def __init__(self, settings: KnowledgeSettings, client: Any = None, embedder: Embedder | None = None) -> None:
        self.embedder = embedder or get_embedder(MULTILINGUAL)
        self.store: ChromaStore = open_store(settings, self.embedder.name, self.embedder.dim,
                                             name=f"{settings.relais_collection}_xl", client=client)
        self._centroid: tuple[int, np.ndarray] | None = None
        self._language_centroids: tuple[int, dict[str, tuple[int, np.ndarray]]] | None = None

    def count(self) -> int:
        return self.store.count()

    def write(self, ids: Sequence[str], index_texts: Sequence[str], documents: Sequence[str],
              metadatas: Sequence[dict[str, Any]], cache_dir: Path | None, progress: Any = None) -> None:
        if not ids:
            return
        vectors = embed_texts(self.embedder, list(index_texts), cache_dir, description="Embedding (cross-language)",
                              progress=progress)
        self.store.upsert(list(ids), vectors, list(documents), list(metadatas))
        self._centroid = self._language_centroids = None

    def sync(self, main: ChromaStore, written: Sequence[Chunk], metadatas: Sequence[dict[str, Any]],
             cache_dir: Path | None, progress: Any = None) -> None:
        """Mirror the main collection: this run's chunks (re)written, chunks it no longer has
        deleted, and any it has that are missing here (an index built before) embedded.
        `progress` (a bar) advances by the chunks done."""
        main_ids, own_ids = set(main.ids()), set(self.store.ids())
        missing = main_ids - own_ids - {c.id for c in written}
        if progress is not None:
            progress.total = len(written) + len(missing)
            progress.refresh()
        self.write([c.id for c in written], [c.index_text for c in written], [c.text for c in written],
                   metadatas, cache_dir, progress)
        self.delete(sorted(own_ids - main_ids))
        if missing:
            ids, documents, metas = main.items()
            rows = [(i, d, m) for i, d, m in zip(ids, documents, metas) if i in missing]
            chunks = [Chunk(d, str(m.get("source", "")), str(m.get("title", "")), str(m.get("section", "")),
                            int(m.get("chunk_index", 0)), str(m.get("language", "en"))) for _, d, m in rows]
            self.write([i for i, _, _ in rows], [c.index_text for c in chunks], [c.text for c in chunks],
                       [m for _, _, m in rows], cache_dir, progress)

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self.store.delete(list(ids))
            self._centroid = self._language_centroids = None

    def reset(self) -> None:
        self.store.reset()
        self._centroid = self._language_centroids = None

    def embed_query(self, question: str) -> np.ndarray:
        return self.embedder.embed_query(question)

    def query(self, vector: np.ndarray, depth: int) -> list[StoredHit]:
        return self.store.query(vector, depth)

    def query_language(self, vector: np.ndarray, depth: int, language: str) -> list[StoredHit]:
        """The nearest chunks written in `language` among the `depth` nearest overall."""
        return [h for h in self.store.query(vector, depth) if str(h.metadata.get("language", "en")) == language]

    def same_language_bar(self, vector: np.ndarray, margin: float, language: str) -> float:
        """The bar for a question on chunks of its own language: the question's mean cosine to
        those chunks and to everyday sentences in that language (the main path's baseline,
        `knowledge.calibration`), plus the scaled margin."""
        reference = baseline_similarity(self.embedder, vector, language)
        stats = self._by_language().get(language)
        if stats is None:
            return reference + margin * SAME_LANGUAGE_MARGIN_SCALE
        n, prior = stats[0], len(REFERENCE_SENTENCES.get(language, REFERENCE_SENTENCES["en"]))
        own = float(np.dot(stats[1], vector))
        return (n * own + prior * reference) / (n + prior) + margin * SAME_LANGUAGE_MARGIN_SCALE

    def _by_language(self) -> dict[str, tuple[int, np.ndarray]]:
        count = self.store.count()
        if self._language_centroids is None or self._language_centroids[0] != count:
            _, matrix, metas = self.store.all_embeddings()
            languages = np.array([str(m.get("language", "en")) for m in metas])
            stats = {lang: (int((languages == lang).sum()), matrix[languages == lang].mean(axis=0).astype(np.float32))
                     for lang in set(languages.tolist())} if len(matrix) else {}
            self._language_centroids = (count, stats)
        return self._language_centroids[1]

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
