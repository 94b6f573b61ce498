"""Benchmark 2 — retrieval latency: `KnowledgeBase.search` (hybrid) vs raw encode + Chroma query.

Index: BEIR SciFact cut by our chunker (5,183 abstracts → ~11.8k chunks). Once every chunk has
a MiniLM vector in the content-hash embedding cache, the index is the one `relais eval retrieval`
builds (`knowledge.evaluation.open_eval_index`, kept in the data dir and shared with it).

Encoding ~12k chunks with MiniLM takes many minutes on 2 cores, too long for one `make bench` on
a cold cache. So each run encodes what it can within `--encode-budget` (corpus order, straight
into the cache, so every run — and `relais eval retrieval` — builds on the last), and until the
cache is full the index is a throw-away one at full size where the chunks still lacking a vector
get a fixed random unit vector. Latency depends on the index size and shape, not on what the
vectors mean; the output says how many chunks carry real vectors.

Per query, in alternating order, on the same collection:
- reference: `embedder.embed_query(q)` + `collection.query(n_results=top_k)` (Chroma directly);
- ours: `kb.search(q, mode="hybrid")` — default top_k and relevance bar, what the chatbot runs;
- breakdown (info): `kb.search(q, mode="dense")` and `mode="bm25"`, and query encoding with
  torch's default threads vs one thread.

Run alone: `.venv/bin/python -m benchmarks.bench_retrieval [--queries 200 --encode-budget 240]`.
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._common import SCIFACT_DIR, BenchResult, Check, Timer, median, percentile, run_main

TARGET_RATIO = 2.0
TARGET_CHUNKS = 10_000


def encode_within_budget(embedder: Any, texts: list[str], cache_dir: Path, budget_s: float,
                         block: int = 64) -> tuple[int, float]:
    """Encode the texts the cache lacks, block by block, until `budget_s` runs out.

    Returns (texts encoded, seconds spent). Vectors land in the shared cache as they come.
    """
    from knowledge.embedding_cache import EmbeddingCache, embed_texts, text_key

    cache = EmbeddingCache(cache_dir, embedder.name, embedder.dim)
    known = cache.get_many([text_key(t) for t in texts])
    missing = list(dict.fromkeys(t for t in texts if text_key(t) not in known))
    started, done = time.perf_counter(), 0
    for start in range(0, len(missing), block):
        if time.perf_counter() - started >= budget_s:
            break
        batch = missing[start : start + block]
        embed_texts(embedder, batch, cache_dir)
        done += len(batch)
    return done, time.perf_counter() - started


def cached_vectors(texts: list[str], embedder: Any, cache_dir: Path, seed: int = 0) -> tuple[np.ndarray, int]:
    """One row per text: its cached vector, or a fixed random unit vector; and how many were real."""
    from knowledge.embedding_cache import EmbeddingCache, text_key

    keys = [text_key(t) for t in texts]
    known = EmbeddingCache(cache_dir, embedder.name, embedder.dim).get_many(keys)
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((len(texts), embedder.dim)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    real = 0
    for i, key in enumerate(keys):
        if key in known:
            matrix[i] = known[key]
            real += 1
    return matrix, real


@contextlib.contextmanager
def placeholder_index(chunks: list[Any], vectors: np.ndarray, settings: Any,
                      embedder: Any) -> Iterator[tuple[Any, Path]]:
    """(KnowledgeBase, its Chroma folder) in a temp folder, built with the given vectors.

    Public store/KB APIs only, and never the embedding cache: placeholders must not leak.
    """
    from knowledge.ingest import chunk_metadata
    from knowledge.retrieval import KnowledgeBase
    from knowledge.store import open_store

    with tempfile.TemporaryDirectory(prefix="relais-bench-index-") as tmp:
        store = open_store(settings, embedder.name, embedder.dim, name="beir", path=Path(tmp) / "chroma")
        store.upsert([c.id for c in chunks], vectors, [c.text for c in chunks],
                     [chunk_metadata(c, "") for c in chunks])
        kb = KnowledgeBase(settings, embedder=embedder, store=store, lexical_dir=Path(tmp) / "lexical")
        kb.refresh_lexical()
        yield kb, Path(tmp) / "chroma"


def thread_probe(embedder: Any, texts: list[str]) -> str:
    """embed_query p50 with torch's default intra-op threads vs one thread, alternating.

    On a shared, oversubscribed machine torch's worker threads can wait on each other for far
    longer than a one-sentence forward pass takes; this shows whether that is happening here.
    """
    import torch

    default = torch.get_num_threads()
    samples: dict[int, list[float]] = {default: [], 1: []}
    try:
        for i, q in enumerate(texts):
            for threads in ((default, 1) if i % 2 == 0 else (1, default)):
                torch.set_num_threads(threads)
                with Timer() as t:
                    embedder.embed_query(q)
                samples[threads].append(t.seconds)
    finally:
        torch.set_num_threads(default)
    return ", ".join(f"{n} thread(s): p50 {median(v) * 1000:.1f} ms, p95 {percentile(v, 95) * 1000:.1f} ms"
                     for n, v in samples.items())


def time_queries(kb: Any, collection: Any, embedder: Any, texts: list[str], top_k: int, warmup: int,
                 query_budget_s: float, min_queries: int) -> tuple[dict[str, list[float]], int]:
    """Per-query latency of each side, interleaved in alternating order; (samples, hybrid hits)."""

    def raw(q: str) -> None:
        vec = embedder.embed_query(q)
        collection.query(query_embeddings=[vec], n_results=top_k, include=["documents", "metadatas", "distances"])

    runners: dict[str, Callable[[str], Any]] = {
        "raw encode + collection.query": raw,
        "KnowledgeBase.search hybrid": lambda q: kb.search(q, mode="hybrid"),
        "KnowledgeBase.search dense": lambda q: kb.search(q, mode="dense"),
        "KnowledgeBase.search bm25": lambda q: kb.search(q, mode="bm25"),
    }
    for q in texts[:warmup]:  # lexical index load, Chroma caches, first-call costs
        for fn in runners.values():
            fn(q)
    samples: dict[str, list[float]] = {name: [] for name in runners}
    names = list(runners)
    hits = 0
    started = time.perf_counter()
    for i, q in enumerate(texts):
        if i >= min_queries and time.perf_counter() - started > query_budget_s:
            break
        for name in (names if i % 2 == 0 else names[::-1]):  # alternate who goes first
            t0 = time.perf_counter()
            out = runners[name](q)
            samples[name].append(time.perf_counter() - t0)
            if name == "KnowledgeBase.search hybrid":
                hits += len(out)
    return samples, hits


def run(result: BenchResult, queries: int = 200, encode_budget_s: float = 240.0, warmup: int = 5,
        query_budget_s: float = 90.0, min_queries: int = 30) -> None:
    from knowledge.beir import load_beir
    from knowledge.encoder_choice import configured_model
    from knowledge.evaluation import corpus_chunks, open_eval_index
    from knowledge.settings import knowledge_settings
    from knowledge.store import chroma_client
    from relais.embeddings import get_embedder

    settings = knowledge_settings()
    root = settings.data_dir  # same place as `relais eval retrieval`'s default
    cache_dir = root / "embeddings"
    dataset = load_beir(SCIFACT_DIR)
    embedder = get_embedder(configured_model(settings))
    with Timer() as t_chunk:
        chunks = corpus_chunks(dataset, settings)
    texts = [c.index_text for c in chunks]
    encoded, encode_s = encode_within_budget(embedder, texts, cache_dir, encode_budget_s)
    vectors, real = cached_vectors(texts, embedder, cache_dir)
    full = real == len(chunks)
    top_k = settings.retrieval_top_k
    query_texts = [dataset.queries[q] for q in sorted(dataset.qrels)[:queries]]

    with contextlib.ExitStack() as stack:
        with Timer() as t_index:
            if full:
                kb, reused = open_eval_index(dataset, settings, embedder=embedder, cache_dir=root)
                chroma_dir = kb.lexical_dir.parent / "chroma"
            else:
                kb, chroma_dir = stack.enter_context(placeholder_index(chunks, vectors, settings, embedder))
                reused = False
        collection = chroma_client(settings, chroma_dir).get_collection("beir", embedding_function=None)
        n_chunks = kb.store.count()
        if collection.count() != n_chunks:
            raise RuntimeError("the reference collection is not the one KnowledgeBase searches")
        samples, hits = time_queries(kb, collection, embedder, query_texts, top_k, warmup,
                                     query_budget_s, min_queries)
    done = len(samples["KnowledgeBase.search hybrid"])
    result.figures["query encoding by torch threads"] = thread_probe(embedder, query_texts[:30])

    stats = {name: (median(v) * 1000, percentile(v, 95) * 1000) for name, v in samples.items()}
    for name, (p50, p95) in stats.items():
        result.figures[name] = f"p50 {p50:.1f} ms, p95 {p95:.1f} ms"
    paired = [o / r for o, r in zip(samples["KnowledgeBase.search hybrid"], samples["raw encode + collection.query"])]
    result.figures["hybrid / raw, paired per query"] = f"median {median(paired):.2f}x, p95 {percentile(paired, 95):.2f}x"
    ref50, ref95 = stats["raw encode + collection.query"]
    ours50, ours95 = stats["KnowledgeBase.search hybrid"]
    result.checks.append(Check(f"hybrid search p50, {n_chunks:,} chunks", ours50, ref50, "ms",
                               ratio=ours50 / ref50, target=f"<= {TARGET_RATIO:g}x",
                               ok=ours50 / ref50 <= TARGET_RATIO))
    result.checks.append(Check(f"hybrid search p95, {n_chunks:,} chunks", ours95, ref95, "ms",
                               ratio=ours95 / ref95, target=f"<= {TARGET_RATIO:g}x",
                               ok=ours95 / ref95 <= TARGET_RATIO))
    source = ("the `relais eval retrieval` index, reused" if reused else
              "the `relais eval retrieval` index, built now" if full else
              f"a temp index: {real:,} chunks with MiniLM vectors, {len(chunks) - real:,} with random "
              "placeholder vectors until the cache is full")
    result.figures["index"] = (f"{n_chunks:,} chunks of {len(dataset.corpus):,} SciFact abstracts — {source} "
                               f"({t_index.seconds:.1f} s; chunking {t_chunk.seconds:.1f} s)")
    result.figures["embedding cache"] = (f"{encoded} chunk(s) encoded this run in {encode_s:.1f} s "
                                         f"(budget {encode_budget_s:g} s); {real:,}/{len(chunks):,} cached "
                                         f"in {cache_dir}")
    result.figures["queries"] = (f"{done} SciFact test queries (query budget {query_budget_s:g} s), top_k "
                                 f"{top_k}, {hits / max(done, 1):.1f} hybrid hits/query after the relevance bar")
    result.figures["n_chunks"] = n_chunks
    result.figures["real_vectors"] = real
    if n_chunks < TARGET_CHUNKS:
        result.notes.append(f"only {n_chunks} chunks (< {TARGET_CHUNKS:,})")
    if not full:
        result.notes.append(f"{len(chunks) - real:,} chunks still lack a MiniLM vector (placeholders); "
                            "each `make bench`, or `relais eval retrieval --dataset <scifact>`, fills the cache")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200, help="at most this many queries (default 200)")
    parser.add_argument("--query-budget", type=float, default=90.0,
                        help="stop timing queries after this many seconds, once 30 are done (default 90)")
    parser.add_argument("--encode-budget", type=float, default=240.0,
                        help="seconds allowed for embedding chunks missing from the cache (default 240)")
    args = parser.parse_args(argv)
    return run_main("retrieval", "2. Retrieval latency: KnowledgeBase.search (hybrid) vs encode + collection.query",
                    lambda r: run(r, args.queries, args.encode_budget, query_budget_s=args.query_budget))


if __name__ == "__main__":
    raise SystemExit(main())
