"""`relais eval retrieval`: score `KnowledgeBase.search` on a BEIR dataset with ir-measures.

The corpus is chunked and embedded by the same code as `relais ingest`, into its own Chroma
collection under `<data dir>/eval/<dataset>-<key>/`, where the key hashes the corpus bytes, the
embedding model and the chunking: a second run reuses the index, and vectors live in the
shared content-hash embedding cache, so no text is ever embedded twice. Each query then goes
through `KnowledgeBase.search` (one hit per document: the best chunk stands for its document,
i.e. max-pooling over passages) and nDCG@10, Recall@10/100 and MRR@10 are computed by
ir-measures (pytrec_eval), averaging over every judged query (a query with no hit scores 0).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ir_measures
from ir_measures import RR, R, nDCG

from knowledge.beir import BeirDataset, load_beir
from knowledge.chunking import Chunk, chunk_document
from knowledge.encoder_choice import choose_for_languages
from knowledge.ingest import chunk_metadata, write_chunks
from knowledge.language import detect_language
from knowledge.loaders import Document
from knowledge.retrieval import MODES, KnowledgeBase, RetrievalConfig
from knowledge.settings import KnowledgeSettings, knowledge_settings
from knowledge.store import open_store
from relais.embeddings import Embedder, get_embedder

INDEX_VERSION = "1"
DEPTH = 100  # documents retrieved per query (Recall@100)


@dataclass
class RetrievalScores:
    ndcg_10: float
    recall_10: float
    recall_100: float
    mrr_10: float
    queries: int
    mode: str
    seconds: float = 0.0
    index_cached: bool = False

    def to_json(self) -> dict[str, Any]:
        """The documented JSON shape of `relais eval retrieval --json`."""
        return {"ndcg@10": round(self.ndcg_10, 4), "recall@10": round(self.recall_10, 4),
                "recall@100": round(self.recall_100, 4), "mrr@10": round(self.mrr_10, 4),
                "queries": self.queries, "mode": self.mode}


def compute_metrics(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, float]:
    """Mean nDCG@10, R@10, R@100, RR@10 over every query of `qrels` (missing run → 0)."""
    measures = {"ndcg@10": nDCG @ 10, "recall@10": R @ 10, "recall@100": R @ 100, "mrr@10": RR @ 10}
    totals = {name: 0.0 for name in measures}
    by_measure = {str(m): name for name, m in measures.items()}
    judged = {q: docs for q, docs in qrels.items() if any(v > 0 for v in docs.values())}
    for metric in ir_measures.iter_calc(list(measures.values()), judged, run):
        totals[by_measure[str(metric.measure)]] += metric.value
    count = max(len(judged), 1)
    return {name: total / count for name, total in totals.items()}


def _index_key(dataset: BeirDataset, embedder: Embedder, settings: KnowledgeSettings) -> str:
    raw = f"{INDEX_VERSION}|{dataset.corpus_sha256}|{embedder.name}|{embedder.dim}|" \
          f"{settings.chunk_size}|{settings.chunk_overlap}"
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def dataset_model(dataset: BeirDataset, settings: KnowledgeSettings) -> str:
    """The encoder ingest would pick for this corpus (`RELAIS_EMBEDDING_MODEL=auto`), or the setting."""
    if settings.chosen_encoder:
        return settings.chosen_encoder
    sample = list(dataset.corpus.values())[:500]
    return choose_for_languages(detect_language(f"{title}. {text[:400]}") for title, text in sample)


def corpus_chunks(dataset: BeirDataset, settings: KnowledgeSettings) -> list[Chunk]:
    """Every document of the corpus cut by the ingest chunker (source = document id)."""
    chunks: list[Chunk] = []
    for doc_id, (title, text) in dataset.corpus.items():
        body = text.strip() or title
        if not body:
            continue
        doc = Document(body, title, Path(doc_id))
        chunks += chunk_document(doc, doc_id, settings.chunk_size, settings.chunk_overlap)
    return chunks


def open_eval_index(dataset: BeirDataset, settings: KnowledgeSettings | None = None, *, embedder: Embedder | None = None,
                    config: RetrievalConfig | None = None, cache_dir: Path | None = None,
                    show_progress: bool = False) -> tuple[KnowledgeBase, bool]:
    """A KnowledgeBase over the dataset's own collection; True when it was already built."""
    settings = settings or knowledge_settings()
    embedder = embedder or get_embedder(dataset_model(dataset, settings))
    root = Path(cache_dir) if cache_dir else settings.data_dir
    index_dir = root / "eval" / f"{dataset.folder.name}-{_index_key(dataset, embedder, settings)}"
    eval_settings = settings.model_copy(update={"chroma_host": None, "relais_collection": "beir"}).on(
        settings.kit.model_copy(update={"relais_data_dir": index_dir}))
    store = open_store(eval_settings, embedder.name, embedder.dim, path=index_dir / "chroma")
    marker = index_dir / "complete.json"
    cached = False
    try:
        cached = json.loads(marker.read_text())["chunks"] == store.count() > 0
    except (OSError, ValueError, KeyError):
        cached = False
    if not cached:
        store.reset()
        chunks = corpus_chunks(dataset, settings)
        write_chunks(store, embedder, chunks, [chunk_metadata(c, "") for c in chunks],
                     root / "embeddings", show_progress)
        marker.write_text(json.dumps({"chunks": len(chunks), "documents": len(dataset.corpus),
                                      "corpus_sha256": dataset.corpus_sha256}))
    kb = KnowledgeBase(eval_settings, embedder=embedder, store=store, config=config,
                       lexical_dir=index_dir / "lexical")
    return kb, cached


def run_queries(kb: KnowledgeBase, dataset: BeirDataset, mode: str, depth: int = DEPTH,
                progress: Callable[[int], None] | None = None) -> dict[str, dict[str, float]]:
    """Run every judged query through `KnowledgeBase.search` (one hit per document)."""
    run: dict[str, dict[str, float]] = {}
    for n, qid in enumerate(sorted(dataset.qrels), 1):
        hits = kb.search(dataset.queries[qid], top_k=depth, mode=mode, min_score=0.0, group_by_source=True)
        # rank-derived scores keep our exact order (ir-measures re-sorts by score)
        run[qid] = {hit.source: float(depth - rank) for rank, hit in enumerate(hits)}
        if progress:
            progress(n)
    return run


def evaluate_retrieval(dataset_dir: Path, qrels: str | Path = "qrels/test.tsv", mode: str | None = None, *,
                       settings: KnowledgeSettings | None = None, embedder_name: str | None = None,
                       config: RetrievalConfig | None = None, cache_dir: Path | None = None,
                       show_progress: bool = False) -> RetrievalScores:
    """Index (or reuse) the dataset, run its queries, return the scores."""
    started = time.perf_counter()
    settings = settings or knowledge_settings()
    mode = mode or settings.retrieval_mode
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    dataset = load_beir(Path(dataset_dir), qrels)
    embedder = get_embedder(embedder_name or dataset_model(dataset, settings))
    kb, cached = open_eval_index(dataset, settings, embedder=embedder, config=config,
                                 cache_dir=cache_dir, show_progress=show_progress)
    run = run_queries(kb, dataset, mode)
    metrics = compute_metrics(dataset.qrels, run)
    return RetrievalScores(metrics["ndcg@10"], metrics["recall@10"], metrics["recall@100"],
                           metrics["mrr@10"], len(dataset.qrels), mode,
                           time.perf_counter() - started, cached)
