"""Retrieval levers we measured and did not adopt, reproducible: `python -m benchmarks.retrieval_levers`.

Not part of `make bench` (the first run embeds ~40k sentence windows: ~15 min on 2 cores; vectors
are cached by content hash, so later runs take about a minute). Every variant re-ranks the same
candidates as the product: the ingest chunker's passages, the product's BM25 (`LexicalIndex`,
default `LexicalParams`) and its fusion (`convex_combination`, max-scaled, top-100 per signal,
one hit per document), scored by ir-measures on SciFact *train* (for choosing) and *test*.

Variants:
- product: passage cosine 0.6 + passage BM25 0.4 (what `KnowledgeBase.search` does);
- windows: "small-to-big" dense side — every two consecutive sentences of a passage, prefixed
  with its heading, embedded on their own; a document scores its best window;
- windows + passage: the better of window and passage cosine;
- windows + document BM25: BM25 over whole documents instead of passages;
- windows + Rocchio: the query vector moved toward the best windows of the top 2 fused documents
  (dense pseudo-relevance feedback), then fused again.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks._common import SCIFACT_DIR, bench_dir, data_dir, format_facts, machine_facts, table

DEPTH = 100
Scores = dict[str, float]


@dataclass
class Corpus:
    """Vectors and owners (document row) of one text unit: passages or windows."""

    vectors: np.ndarray
    owner: np.ndarray


def _windows(chunks: list, size: int = 2) -> tuple[list[str], list[str]]:
    from knowledge.chunking import split_sentences

    texts, sources = [], []
    for chunk in chunks:
        sentences = split_sentences(chunk.text) or [chunk.text]
        for start in range(max(len(sentences) - size, 0) + 1):
            body = " ".join(sentences[start : start + size])
            texts.append(f"{chunk.heading}\n{body}" if chunk.heading else body)
            sources.append(chunk.source)
    return texts, sources


def _best_per_doc(values: np.ndarray, owner: np.ndarray, doc_ids: list[str], depth: int = DEPTH) -> Scores:
    """Best unit score per document, the `depth` best documents (max-pooling, as the product)."""
    best = np.full(len(doc_ids), -np.inf, dtype=np.float32)
    np.maximum.at(best, owner, values.astype(np.float32))
    top = np.argpartition(-best, min(depth, len(best) - 1))[:depth]
    return {doc_ids[i]: float(best[i]) for i in top if np.isfinite(best[i])}


def run(dataset: Path, splits: list[str]) -> dict[str, dict[str, float]]:
    from knowledge.beir import load_beir
    from knowledge.embedding_cache import embed_texts
    from knowledge.evaluation import compute_metrics, corpus_chunks
    from knowledge.fusion import convex_combination
    from knowledge.lexical import LexicalIndex, LexicalParams
    from knowledge.settings import knowledge_settings
    from relais.embeddings import get_embedder

    settings = knowledge_settings()
    embedder = get_embedder("minilm")
    cache = data_dir() / "embeddings"
    base = load_beir(dataset, f"qrels/{splits[0]}.tsv")
    doc_ids = list(base.corpus)
    row = {d: i for i, d in enumerate(doc_ids)}
    chunks = corpus_chunks(base, settings)
    passages = Corpus(embed_texts(embedder, [c.index_text for c in chunks], cache, show_progress=True,
                                  description="Embedding passages"),
                      np.array([row[c.source] for c in chunks]))
    window_texts, window_sources = _windows(chunks)
    windows = Corpus(embed_texts(embedder, window_texts, cache, show_progress=True,
                                 description="Embedding windows"),
                     np.array([row[s] for s in window_sources]))
    params = LexicalParams()
    bm25_passages = LexicalIndex.build([c.id for c in chunks], [c.index_text for c in chunks],
                                       [c.language for c in chunks], params)
    bm25_docs = LexicalIndex.build(doc_ids, [f"{t}\n{x}" for t, x in base.corpus.values()],
                                   ["en"] * len(doc_ids), params)
    chunk_owner = passages.owner

    def fuse(*lists: tuple[Mapping[str, float], float]) -> Scores:
        return convex_combination(list(lists), "max")

    def rocchio(qvec: np.ndarray, dense: Scores, lexical: Scores, beta: float = 0.2, docs: int = 2) -> Scores:
        fused = fuse((dense, 0.6), (lexical, 0.4))
        top = {row[d] for d in sorted(fused, key=fused.__getitem__, reverse=True)[:docs]}
        units = np.flatnonzero(np.isin(windows.owner, list(top)))
        best = units[np.argsort(-(windows.vectors[units] @ qvec))[:docs]]
        moved = qvec + beta * windows.vectors[best].mean(axis=0)
        moved /= np.linalg.norm(moved)
        return fuse((_best_per_doc(windows.vectors @ moved, windows.owner, doc_ids), 0.6), (lexical, 0.4))

    variants: dict[str, Callable[[np.ndarray, dict[str, Scores]], Scores]] = {
        "dense passages": lambda q, s: s["passage"],
        "dense windows": lambda q, s: s["window"],
        "bm25 passages": lambda q, s: s["bm25"],
        "hybrid, product (passages .6 / bm25 .4)": lambda q, s: fuse((s["passage"], 0.6), (s["bm25"], 0.4)),
        "hybrid, windows .6 / bm25 .4": lambda q, s: fuse((s["window"], 0.6), (s["bm25"], 0.4)),
        "hybrid, max(window, passage) .6 / bm25 .4": lambda q, s: fuse((s["both"], 0.6), (s["bm25"], 0.4)),
        "hybrid, windows .6 / document bm25 .4": lambda q, s: fuse((s["window"], 0.6), (s["bm25_doc"], 0.4)),
        "hybrid, windows + Rocchio (beta .2, 2 docs)": lambda q, s: rocchio(q, s["window"], s["bm25"]),
    }
    results: dict[str, dict[str, float]] = {name: {} for name in variants}
    for split in splits:
        data = load_beir(dataset, f"qrels/{split}.tsv")
        runs: dict[str, dict[str, Scores]] = {name: {} for name in variants}
        for qid in sorted(data.qrels):
            query = data.queries[qid]
            qvec = embedder.embed_query(query)
            passage_cos = passages.vectors @ qvec
            window_cos = windows.vectors @ qvec
            signals = {
                "passage": _best_per_doc(passage_cos, passages.owner, doc_ids),
                "window": _best_per_doc(window_cos, windows.owner, doc_ids),
                "bm25": _best_per_doc(bm25_passages.scores(query), chunk_owner, doc_ids),
                "bm25_doc": _best_per_doc(bm25_docs.scores(query), np.arange(len(doc_ids)), doc_ids),
            }
            signals["both"] = _best_per_doc(
                np.concatenate([passage_cos, window_cos]), np.concatenate([passages.owner, windows.owner]), doc_ids)
            for name, score in variants.items():
                scores = score(qvec, signals)
                ranked = sorted(scores, key=scores.__getitem__, reverse=True)[:DEPTH]
                runs[name][qid] = {doc: float(DEPTH - rank) for rank, doc in enumerate(ranked)}
        for name in variants:
            results[name][split] = round(compute_metrics(data.qrels, runs[name])["ndcg@10"], 4)
    results["_units"] = {"passages": len(chunks), "windows": len(window_texts)}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=SCIFACT_DIR, help="a BEIR folder (default: SciFact)")
    parser.add_argument("--splits", default="train,test", help="qrels files to score, comma-separated")
    args = parser.parse_args(argv)
    splits = [s for s in args.splits.split(",") if (args.dataset / "qrels" / f"{s}.tsv").is_file()]
    if not splits:
        parser.error(f"no qrels/{{{args.splits}}}.tsv under {args.dataset}")
    print(format_facts(machine_facts()))
    results = run(args.dataset, splits)
    units = results.pop("_units")
    print(f"{units['passages']} passages, {units['windows']} sentence windows ({args.dataset.name})")
    print(table([[name] + [f"{scores[s]:.4f}" for s in splits] for name, scores in results.items()],
                ["variant (nDCG@10)"] + splits))
    out = bench_dir() / "retrieval_levers.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"dataset": str(args.dataset), "units": units, "ndcg@10": results}, indent=2))
    print(f"  -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
