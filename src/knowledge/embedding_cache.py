"""Embed texts in batches through a persistent cache keyed by the text's content hash.

Encoding is the slow part of ingest and evaluation (MiniLM: ~16 SciFact abstracts/s on 2
cores), so a text is never embedded twice by the same model: re-ingesting a changed file only
encodes its new chunks, and every retrieval experiment reuses the corpus vectors.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from relais.embeddings import Embedder


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """A SQLite file of (sha256(text) → float32 vector) for one embedding model."""

    def __init__(self, directory: Path, model_name: str, dim: int) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / f"{model_name}-{dim}.sqlite"
        self.dim = dim
        with closing(self._connect()) as db, db:
            db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30)
        # closed, not left to the garbage collector: the pragma answers a row, and while its cursor
        # lives (a profiler or a traceback holding the frame) the statement counts as in progress,
        # so the next commit failed ("SQL statements in progress") and a composer answer with it
        # (50-conversation load, `benchmarks/bench_load.py`: one help-center turn answered nothing)
        db.execute("PRAGMA journal_mode=WAL").close()
        return db

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with closing(self._connect()) as db:
            for start in range(0, len(keys), 500):
                batch = list(keys[start : start + 500])
                marks = ",".join("?" * len(batch))
                for key, blob in db.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", batch):
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape[0] == self.dim:
                        found[key] = vec
        return found

    def put_many(self, items: Sequence[tuple[str, np.ndarray]]) -> None:
        with closing(self._connect()) as db, db:
            db.executemany(
                "INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)",
                [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items],
            )


class RecentVectors:
    """The vectors this process read or wrote last, by (cache file, text key): a bounded LRU in
    front of the SQLite file. The composer asks for the same units' vectors question after
    question; opening the file and reading them back cost more than the rest of its scoring."""

    def __init__(self, size: int = 20_000) -> None:  # ~30 MB of MiniLM/USE vectors at most
        self.size = size
        self._vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get_many(self, where: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for key in keys:
                vector = self._vectors.get((where, key))
                if vector is not None:
                    self._vectors.move_to_end((where, key))
                    found[key] = vector
        return found

    def put_many(self, where: str, items: dict[str, np.ndarray]) -> None:
        with self._lock:
            for key, vector in items.items():
                self._vectors[(where, key)] = np.array(vector, dtype=np.float32)  # not a view of a batch
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)


RECENT = RecentVectors()


def embed_texts(
    embedder: Embedder,
    texts: Sequence[str],
    cache_dir: Path | None = None,
    *,
    batch_size: int = 64,
    show_progress: bool = False,
    description: str = "Embedding",
    progress: Any = None,
) -> np.ndarray:
    """Normalised vectors for `texts` (one row each), encoding only what the cache lacks.

    `progress`: a bar (`knowledge.progress.Phases.phase`) to advance as texts are done. With its
    total unset, the total becomes the number of texts missing from the cache; with a total set
    by the caller, the texts found in the cache count as done at once."""
    matrix = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    if not texts:
        return matrix
    keys = [text_key(t) for t in texts]
    where = f"{cache_dir}/{embedder.name}-{embedder.dim}" if cache_dir else ""
    remembered = RECENT.get_many(where, keys) if cache_dir else {}
    known = dict(remembered)
    cache = EmbeddingCache(cache_dir, embedder.name, embedder.dim) if cache_dir and len(known) < len(set(keys)) else None
    if cache:
        known.update(cache.get_many([k for k in keys if k not in known]))
    todo: dict[str, int] = {}
    for i, key in enumerate(keys):
        if key in known:
            matrix[i] = known[key]
        else:
            todo.setdefault(key, i)
    # longest first, like sentence-transformers sorts inside one call: each block then pads to
    # similar lengths (blocks in document order cost ~7 % more encoding on SciFact abstracts)
    missing = sorted(todo.items(), key=lambda item: -len(texts[item[1]]))
    own_bar = None
    if progress is None and show_progress and missing:
        progress = own_bar = tqdm(total=len(missing), desc=description, unit="chunk")
    elif progress is not None and progress.total is None:
        progress.total = len(missing)
        progress.refresh()
    elif progress is not None:
        progress.update(len(texts) - len(missing))
    step = max(batch_size, 1) * 4  # encode and persist in blocks so an interrupted run resumes
    for start in range(0, len(missing), step):
        block = missing[start : start + step]
        vectors = embedder.embed_documents([texts[i] for _, i in block], batch_size=batch_size)
        for (key, _), vec in zip(block, vectors):
            known[key] = vec
        if cache:
            cache.put_many([(key, vec) for (key, _), vec in zip(block, vectors)])
        if progress is not None:
            progress.update(len(block))
    if own_bar is not None:
        own_bar.close()
    for i, key in enumerate(keys):
        if key in todo:
            matrix[i] = known[key]
    if cache_dir:
        RECENT.put_many(where, {k: v for k, v in known.items() if k not in remembered})
    return matrix
