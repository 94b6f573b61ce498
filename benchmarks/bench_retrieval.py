"""Benchmark 2 — retrieval latency: `KnowledgeBase.search` (hybrid) vs raw encode + Chroma query.

Index: BEIR SciFact cut by our chunker (5,183 abstracts → ~11.8k chunks), built by the same
code as `relais eval retrieval` (`knowledge.evaluation.open_eval_index`) in the data dir, so the
two share the index and the content-hash embedding cache: whichever runs first pays for the
vectors, the other reuses them.

Encoding ~12k chunks with MiniLM takes minutes on 2 cores, too long for `make bench` on a cold
cache. So the missing vectors are encoded within a time budget (`--encode-budget`, corpus order,
written to the cache as they come), and the benchmark runs on the documents whose chunks are all
cached. The chunk count is printed; every run adds to the cache until the full corpus is in.

Per query, in alternating order, on the same collection:
- reference: `embedder.embed_query(q)` + `collection.query(n_results=top_k)` (Chroma directly);
- ours: `kb.search(q, mode="hybrid")` — default top_k and relevance bar, what the chatbot runs;
- breakdown (info): `kb.search(q, mode="dense")` and `mode="bm25"`.

Run alone: `.venv/bin/python -m benchmarks.bench_retrieval [--queries 200 --encode-budget 240]`.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

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


def cached_subset(dataset: Any, chunks: list[Any], embedder: Any, cache_dir: Path) -> dict[str, tuple[str, str]]:
    """The corpus documents whose every chunk has a cached vector."""
    from knowledge.embedding_cache import EmbeddingCache, text_key

    known = EmbeddingCache(cache_dir, embedder.name, embedder.dim).get_many(
        [text_key(c.index_text) for c in chunks])
    incomplete = {c.source for c in chunks if text_key(c.index_text) not in known}
    with_chunks = {c.source for c in chunks}
    return {d: v for d, v in dataset.corpus.items() if d in with_chunks and d not in incomplete}


def latency_table(samples: dict[str, list[float]]) -> dict[str, tuple[float, float]]:
    return {name: (median(v) * 1000, percentile(v, 95) * 1000) for name, v in samples.items()}


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


def run(result: BenchResult, queries: int = 200, encode_budget_s: float = 240.0, warmup: int = 5,
        query_budget_s: float = 90.0, min_queries: int = 30) -> None:
    from knowledge.beir import load_beir
    from knowledge.evaluation import corpus_chunks, open_eval_index
    from knowledge.store import chroma_client
    from relais.embeddings import get_embedder
    from relais.settings import get_settings

    settings = get_settings()
    root = settings.data_dir  # same place as `relais eval retrieval`'s default
    cache_dir = root / "embeddings"
    dataset = load_beir(SCIFACT_DIR)
    embedder = get_embedder(settings.relais_embedding_model)
    with Timer() as t_chunk:
        chunks = corpus_chunks(dataset, settings)
    encoded, encode_s = encode_within_budget(embedder, [c.index_text for c in chunks], cache_dir, encode_budget_s)
    corpus = cached_subset(dataset, chunks, embedder, cache_dir)
    if not corpus:
        raise RuntimeError("no SciFact document is fully embedded yet; raise --encode-budget")
    full = len(corpus) == len({c.source for c in chunks})
    if not full:  # a partial index of its own, thrown away after the run
        digest = hashlib.sha256(",".join(sorted(corpus)).encode()).hexdigest()
        dataset = replace(dataset, folder=Path("scifact-bench-partial"), corpus=corpus,
                          corpus_sha256=f"{dataset.corpus_sha256}-{digest[:16]}")
    with Timer() as t_index:
        kb, reused = open_eval_index(dataset, settings, embedder=embedder, cache_dir=root)
    index_dir = kb.lexical_dir.parent
    n_chunks = kb.store.count()
    try:
        collection = chroma_client(settings, index_dir / "chroma").get_collection("beir", embedding_function=None)
        if collection.count() != n_chunks:
            raise RuntimeError("the reference collection is not the one KnowledgeBase searches")
        top_k = settings.retrieval_top_k
        qids = sorted(dataset.qrels)[:queries]
        texts = [dataset.queries[q] for q in qids]

        def raw(q: str) -> None:
            vec = embedder.embed_query(q)
            collection.query(query_embeddings=[vec], n_results=top_k,
                             include=["documents", "metadatas", "distances"])

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
        phase_started = time.perf_counter()
        for i, q in enumerate(texts):
            if i >= min_queries and time.perf_counter() - phase_started > query_budget_s:
                result.notes.append(f"query phase stopped after {i} queries (budget {query_budget_s:g} s)")
                texts = texts[:i]
                break
            order = names if i % 2 == 0 else names[::-1]  # alternate who goes first
            for name in order:
                started = time.perf_counter()
                out = runners[name](q)
                samples[name].append(time.perf_counter() - started)
                if name == "KnowledgeBase.search hybrid":
                    hits += len(out)
    finally:
        if not full:
            shutil.rmtree(index_dir, ignore_errors=True)

    result.figures["query encoding by torch threads"] = thread_probe(embedder, texts[:30])
    stats = latency_table(samples)
    ref50, ref95 = stats["raw encode + collection.query"]
    for name, (p50, p95) in stats.items():
        result.figures[name] = f"p50 {p50:.1f} ms, p95 {p95:.1f} ms"
    ours50, ours95 = stats["KnowledgeBase.search hybrid"]
    result.checks.append(Check("hybrid search p50", ours50, ref50, "ms", ratio=ours50 / ref50,
                               target=f"<= {TARGET_RATIO:g}x", ok=ours50 / ref50 <= TARGET_RATIO))
    result.checks.append(Check("hybrid search p95", ours95, ref95, "ms", ratio=ours95 / ref95,
                               target=f"<= {TARGET_RATIO:g}x", ok=ours95 / ref95 <= TARGET_RATIO))
    result.figures["index"] = (
        f"{n_chunks} chunks from {len(corpus)} of {len(set(c.source for c in chunks))} SciFact abstracts "
        f"({'reused' if reused else 'built'} in {t_index.seconds:.1f} s; chunking {t_chunk.seconds:.1f} s)")
    result.figures["embedding cache"] = (f"{encoded} chunk(s) encoded this run in {encode_s:.1f} s "
                                         f"(budget {encode_budget_s:g} s) -> {cache_dir}")
    result.figures["queries"] = (f"{len(texts)} SciFact test queries, top_k {top_k}, "
                                 f"{hits / max(len(texts), 1):.1f} hybrid hits/query after the relevance bar")
    result.figures["n_chunks"] = n_chunks
    if n_chunks < TARGET_CHUNKS:
        result.notes.append(
            f"only {n_chunks} chunks (< {TARGET_CHUNKS:,}): the embedding cache is still cold; each "
            "`make bench` (or `relais eval retrieval --dataset .../scifact`) adds to it")


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
