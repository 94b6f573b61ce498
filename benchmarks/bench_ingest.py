"""Benchmark 1 — ingest throughput: `knowledge.ingest.ingest_folder` vs the bare encoder.

Corpus: the first N SciFact abstracts written as Markdown files (`# title` + abstract), so every
chunk is distinct (a replicated demo KB would be deduplicated by the embedding cache and flatter
us). Both sides see the very same chunk texts. Order is ABBA — encoder then ingest on one half,
ingest then encoder on the other — so a load change on the shared machine hits both sides alike.

Ingest runs end to end in a fresh temp data dir (cold embedding cache): hashing, loading,
chunking, embedding, Chroma upsert, manifest, BM25 rebuild. Its embedding time is also timed
separately (a thin timing proxy around the shared embedder) to show where the rest goes.
Afterwards the fresh vectors are copied into the user's content-hash embedding cache, where the
retrieval benchmark and `relais eval retrieval` find them (they chunk SciFact identically).

Run alone: `.venv/bin/python -m benchmarks.bench_ingest [--docs 150]`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._common import (
    SCIFACT_DIR,
    BenchResult,
    Check,
    Timer,
    data_dir,
    merge_embedding_caches,
    run_main,
    temp_data_dir,
)

TARGET_RATIO = 0.85


def scifact_docs(n: int, folder: Path = SCIFACT_DIR) -> list[tuple[str, str, str]]:
    """The first `n` (id, title, abstract) of SciFact, in corpus order."""
    docs: list[tuple[str, str, str]] = []
    with gzip.open(folder / "corpus.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            title, text = str(row.get("title") or "").strip(), str(row.get("text") or "").strip()
            if text:
                docs.append((str(row["_id"]), title, text))
            if len(docs) >= n:
                break
    return docs


def write_corpus(folder: Path, docs: Sequence[tuple[str, str, str]]) -> None:
    """One Markdown file per abstract, with varied, readable names."""
    folder.mkdir(parents=True, exist_ok=True)
    for doc_id, title, text in docs:
        slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:48] or "untitled"
        (folder / f"{doc_id}-{slug}.md").write_text(f"# {title}\n\n{text}\n", encoding="utf-8")


def chunk_texts(folder: Path) -> list[str]:
    """Exactly the texts ingest will embed: its own discover → load → chunk functions."""
    from knowledge.chunking import chunk_document
    from knowledge.ingest import discover
    from knowledge.loaders import load_document
    from knowledge.settings import knowledge_settings

    settings = knowledge_settings()
    texts: list[str] = []
    for path in discover(folder):
        doc = load_document(path, settings.max_file_mb)
        rel = path.relative_to(folder).as_posix()
        texts += [c.index_text for c in chunk_document(doc, rel, settings.chunk_size, settings.chunk_overlap)]
    return texts


class TimedEmbedder:
    """Delegates to the shared embedder and adds up the time spent in `embed_documents`."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.seconds = 0.0

    def embed_documents(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        with Timer() as t:
            out = self.inner.embed_documents(texts, batch_size=batch_size)
        self.seconds += t.seconds
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


def encode_raw(embedder: Any, texts: Sequence[str]) -> float:
    """Seconds for the bare encoder on `texts` in one call (what `model.encode` costs)."""
    with Timer() as t:
        embedder.embed_documents(list(texts), batch_size=64)
    return t.seconds


def ingest_once(folder: Path, embedder: Any, keep_vectors_in: Path | None) -> dict[str, Any]:
    """`ingest_folder` in a fresh data dir; returns timings and what it wrote."""
    from knowledge.ingest import ingest_folder
    from knowledge.retrieval import KnowledgeBase
    from knowledge.settings import knowledge_settings

    with temp_data_dir() as tmp:
        settings = knowledge_settings()
        timed = TimedEmbedder(embedder)
        with Timer() as t:
            kb = KnowledgeBase(settings, embedder=timed)  # opening the store is part of ingest
            report = ingest_folder(folder, settings, show_progress=False, kb=kb)
        if report.failed:
            raise RuntimeError(f"ingest failed on {len(report.failed)} file(s): {report.failed[:3]}")
        if keep_vectors_in is not None:  # hand the fresh vectors to the persistent cache
            merge_embedding_caches(tmp / "embeddings", keep_vectors_in)
    return {"seconds": t.seconds, "embed_seconds": timed.seconds, "chunks": report.chunks,
            "files": len(report.indexed), "total_chunks": report.total_chunks}


def run(result: BenchResult, docs: int = 150, share_cache: bool = True) -> None:
    import tempfile

    from knowledge.encoder_choice import configured_model
    from knowledge.settings import knowledge_settings
    from relais.embeddings import get_embedder

    settings = knowledge_settings()
    embedder = get_embedder(configured_model(settings))  # the instance ingest uses (before any document: `auto` is MiniLM)
    cache = data_dir() / "embeddings" if share_cache else None
    corpus = scifact_docs(docs)
    half = len(corpus) // 2
    with tempfile.TemporaryDirectory(prefix="relais-bench-kb-") as root:
        folders = [Path(root) / "a", Path(root) / "b"]
        write_corpus(folders[0], corpus[:half])
        write_corpus(folders[1], corpus[half:])
        texts = [chunk_texts(f) for f in folders]
        embedder.embed_documents(texts[0][:16])  # warm-up: model loaded, kernels initialised
        import chromadb  # noqa: F401 - process start-up (1.3 s) is not throughput, on either side

        raw_a = encode_raw(embedder, texts[0])                # A: encoder, then ingest
        ing_a = ingest_once(folders[0], embedder, cache)
        ing_b = ingest_once(folders[1], embedder, cache)      # B: ingest, then encoder
        raw_b = encode_raw(embedder, texts[1])

    chunks = len(texts[0]) + len(texts[1])
    if ing_a["chunks"] + ing_b["chunks"] != chunks:
        raise RuntimeError(f"ingest wrote {ing_a['chunks'] + ing_b['chunks']} chunks, expected {chunks}")
    raw_s, ingest_s = raw_a + raw_b, ing_a["seconds"] + ing_b["seconds"]
    embed_s = ing_a["embed_seconds"] + ing_b["embed_seconds"]
    raw_rate, ingest_rate = chunks / raw_s, chunks / ingest_s
    ratio = ingest_rate / raw_rate
    result.figures.update({
        "corpus": f"{len(corpus)} SciFact abstracts as .md files -> {chunks} chunks "
                  f"(chunk_size {settings.chunk_size}, overlap {settings.chunk_overlap}), "
                  f"mean {sum(map(len, texts[0] + texts[1])) / chunks:.0f} chars",
        "encoder alone": f"{raw_s:.1f} s = {raw_rate:.1f} chunks/s (halves: {raw_a:.1f} s, {raw_b:.1f} s)",
        "ingest_folder": f"{ingest_s:.1f} s = {ingest_rate:.1f} chunks/s "
                         f"(halves: {ing_a['seconds']:.1f} s, {ing_b['seconds']:.1f} s)",
        "ingest breakdown": f"encoding {embed_s:.1f} s ({embed_s / ingest_s:.0%}), everything else "
                            f"{ingest_s - embed_s:.1f} s (hash, load, chunk, Chroma upsert, BM25 build, "
                            f"embedding-cache writes)",
    })
    result.checks.append(Check("ingest throughput", ingest_rate, raw_rate, "chunks/s", ratio=ratio,
                               target=f">= {TARGET_RATIO}x", ok=ratio >= TARGET_RATIO))
    result.notes.append("order ABBA over two halves; ingest in a fresh temp data dir (cold cache)")
    if cache is not None:
        result.notes.append(f"fresh vectors copied to the shared embedding cache {cache}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=150, help="SciFact abstracts to ingest (default 150)")
    parser.add_argument("--no-share-cache", action="store_true",
                        help="do not copy the fresh vectors into the data dir's embedding cache")
    args = parser.parse_args(argv)
    return run_main("ingest", "1. Ingest throughput: ingest_folder vs encoder alone",
                    lambda r: run(r, args.docs, not args.no_share_cache))


if __name__ == "__main__":
    raise SystemExit(main())
