"""What hybrid retrieval reads besides the vector store: its parameters, and the BM25 index
(with the per-language dense centroids) rebuilt from the store, its single source of truth."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from knowledge.chunking import Chunk
from knowledge.lexical import LexicalIndex, LexicalParams
from knowledge.settings import KnowledgeSettings
from knowledge.store import ChromaStore


@dataclass(frozen=True)
class RetrievalConfig:
    """Fusion and lexical parameters (chosen on SciFact train, see README "Quality").

    Optional settings override them when the knowledge settings define them: `RETRIEVAL_FUSION`,
    `RETRIEVAL_RRF_K`, `RETRIEVAL_DENSE_WEIGHT`, `RETRIEVAL_LEXICAL_WEIGHT`, `RETRIEVAL_DEPTH`,
    `RETRIEVAL_MIN_MARGIN`, `RETRIEVAL_NORMALISE`. Measured on SciFact train (nDCG@10): RRF k=60
    0.718; convex min-max 0.5/0.5 0.739; convex max-scaled 0.6/0.4 0.743, with BM25 k1=0.9
    b=0.4 0.747. Feedback (RM3, Rocchio) and title boosting did not help there, so they are off.
    """

    fusion: str = "convex"  # "convex" | "rrf"
    rrf_k: float = 60.0
    dense_weight: float = 0.6
    lexical_weight: float = 0.4
    depth: int = 100  # candidates taken from each ranker before fusion
    min_margin: float = 0.2  # cosine above the question's same-language baseline (see module doc)
    min_coverage: float = 0.5  # ...or this share of the question's words (idf-weighted)
    normalise: str = "max"  # convex fusion's score scaling: "max" | "minmax" | "zscore"
    feedback_docs: int = 0  # hybrid pseudo-relevance feedback from the top fused hits; 0 = off
    dense_feedback: float = 0.0  # Rocchio: query vector + this × mean of the feedback vectors
    lexical_feedback: bool = False  # RM3 terms from the feedback hits (LexicalParams.prf_*)
    lexical: LexicalParams = field(default_factory=LexicalParams)

    @classmethod
    def from_settings(cls, settings: KnowledgeSettings) -> RetrievalConfig:
        base = cls()
        return replace(
            base,
            fusion=settings.retrieval_fusion,
            rrf_k=settings.retrieval_rrf_k,
            dense_weight=settings.retrieval_dense_weight,
            lexical_weight=settings.retrieval_lexical_weight,
            depth=settings.retrieval_depth,
            min_margin=settings.retrieval_min_margin,
            normalise=settings.retrieval_normalise,
        )


def chunk_payload(id_: str, document: str, meta: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": id_, "text": document, "source": str(meta.get("source", "")),
        "title": str(meta.get("title", "")), "section": str(meta.get("section", "")),
        "chunk_index": int(meta.get("chunk_index", 0)), "language": str(meta.get("language", "en")),
    }


def shared_titles(payloads: Iterable[dict[str, Any]]) -> set[str]:
    """Titles that more than one document of the knowledge base carries."""
    sources: dict[str, set[str]] = {}
    for payload in payloads:
        sources.setdefault(payload["title"], set()).add(payload["source"])
    return {title for title, docs in sources.items() if len(docs) > 1}


def language_centroids(store: ChromaStore) -> dict[str, dict[str, Any]]:
    """Mean chunk vector and count per language (q·mean = q's mean cosine to those chunks)."""
    _, matrix, metas = store.all_embeddings()
    languages = np.array([str(m.get("language", "en")) for m in metas])
    return {lang: {"mean": matrix[languages == lang].mean(axis=0).astype(float).tolist(),
                   "count": int((languages == lang).sum())}
            for lang in sorted(set(languages.tolist()))}


def build_lexical_index(store: ChromaStore, params: LexicalParams) -> LexicalIndex:
    """Rebuild BM25 (and the dense centroids) from the vector store: its single source of truth."""
    ids, documents, metadatas = store.items()
    payloads = [chunk_payload(i, d, m) for i, d, m in zip(ids, documents, metadatas)]
    chunks = [Chunk(p["text"], p["source"], p["title"], p["section"], p["chunk_index"], p["language"])
              for p in payloads]
    return LexicalIndex.build(
        ids, [c.index_text for c in chunks], [c.language for c in chunks], params,
        headings=[c.heading for c in chunks], payloads=payloads,
        extras={"centroids": language_centroids(store)},
    )
