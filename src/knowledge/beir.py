"""Read a BEIR-layout folder: corpus.jsonl(.gz), queries.jsonl, qrels/*.tsv."""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from knowledge.errors import KnowledgeError


@dataclass
class BeirDataset:
    """A corpus, its queries and one qrels file (query id → {doc id: relevance})."""

    folder: Path
    corpus: dict[str, tuple[str, str]]  # doc id → (title, text)
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    corpus_sha256: str = ""
    qrels_path: Path = field(default_factory=Path)


def _corpus_file(folder: Path) -> Path:
    for name in ("corpus.jsonl", "corpus.jsonl.gz"):
        if (folder / name).is_file():
            return folder / name
    raise KnowledgeError(f"{folder}: no corpus.jsonl or corpus.jsonl.gz (BEIR layout expected)")


def _jsonl(path: Path) -> Iterator[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise KnowledgeError(f"{path}:{number}: invalid JSON ({exc.msg})") from None


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """TSV `query-id corpus-id score` with a header line (BEIR), or without one."""
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.reader(handle, delimiter="\t"):
            if len(row) < 3 or row[0] == "query-id":
                continue
            try:
                score = int(float(row[2]))
            except ValueError:
                continue  # an unnamed header
            qrels.setdefault(row[0], {})[row[1]] = score
    return qrels


def load_beir(folder: Path, qrels: str | Path = "qrels/test.tsv") -> BeirDataset:
    folder = Path(folder)
    if not folder.is_dir():
        raise KnowledgeError(f"{folder}: dataset folder not found")
    corpus_path = _corpus_file(folder)
    digest = hashlib.sha256(corpus_path.read_bytes()).hexdigest()
    corpus = {
        str(row["_id"]): (str(row.get("title") or "").strip(), str(row.get("text") or ""))
        for row in _jsonl(corpus_path)
    }
    queries_path = folder / "queries.jsonl"
    if not queries_path.is_file():
        raise KnowledgeError(f"{folder}: no queries.jsonl")
    queries = {str(row["_id"]): str(row["text"]) for row in _jsonl(queries_path)}
    qrels_path = Path(qrels)
    if not qrels_path.is_absolute():
        qrels_path = folder / qrels_path
    if not qrels_path.is_file():
        available = ", ".join(sorted(p.name for p in (folder / "qrels").glob("*.tsv")))
        raise KnowledgeError(f"{qrels_path}: qrels file not found (available: {available or 'none'})")
    judged = read_qrels(qrels_path)
    judged = {q: docs for q, docs in judged.items() if q in queries}
    return BeirDataset(folder, corpus, queries, judged, digest, qrels_path)
