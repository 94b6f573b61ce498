"""The vector-store seam: one small interface, Chroma behind it (embedded or a server).

`open_store` picks `chromadb.PersistentClient(settings.chroma_dir)` by default, or
`chromadb.HttpClient(CHROMA_HOST, CHROMA_PORT)` when `CHROMA_HOST` is set (the scale-out path:
several app processes share one Chroma server). We always pass our own embeddings
(`embedding_function=None`), so Chroma never tries to download its default ONNX model, and
the collection uses cosine distance (score = 1 - distance = cosine similarity).
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from knowledge.errors import StoreUnavailable
from knowledge.settings import KnowledgeSettings

_BATCH = 1000
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class StoredHit:
    id: str
    score: float  # cosine similarity
    document: str
    metadata: dict[str, Any]


class CountMemo:
    """A store's chunk count, read again only when `stamp()` changes or `ttl_s` has passed.

    A question asked Chroma for a count about nine times (is it empty, which languages, is the
    twin filled, for the search and again for the composer): ~10 ms each on a loaded 2-core
    machine, a third of a raw encode + query. An ingest in this process calls `forget`; one in
    another process changes the stamp (the BM25 index it saves), or is seen within `ttl_s`.
    """

    def __init__(self, count: Callable[[], int], stamp: Callable[[], object], ttl_s: float = 1.0) -> None:
        self._count, self._stamp, self.ttl_s = count, stamp, ttl_s
        self._known: tuple[object, float, int] | None = None  # (stamp, when read, count)

    def __call__(self) -> int:
        stamp, now = self._stamp(), time.monotonic()
        known = self._known
        if known is not None and known[0] == stamp and now - known[1] < self.ttl_s:
            return known[2]
        count = self._count()
        self._known = (stamp, now, count)
        return count

    def forget(self) -> None:
        self._known = None


class VectorStore(Protocol):
    """What ingest and retrieval need from a vector store."""

    def upsert(self, ids: Sequence[str], embeddings: np.ndarray, documents: Sequence[str],
               metadatas: Sequence[dict[str, Any]]) -> None: ...
    def delete(self, ids: Sequence[str]) -> None: ...
    def query(self, vector: np.ndarray, n: int) -> list[StoredHit]: ...
    def embeddings(self, ids: Sequence[str]) -> dict[str, np.ndarray]: ...
    def items(self) -> tuple[list[str], list[str], list[dict[str, Any]]]: ...
    def ids(self) -> list[str]: ...
    def all_embeddings(self) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]: ...
    def count(self) -> int: ...
    def reset(self) -> None: ...


class ChromaStore:
    """A Chroma collection with cosine space and caller-supplied embeddings."""

    def __init__(self, client: Any, name: str, embedder_name: str, dim: int) -> None:
        self._client = client
        self.name = name
        self._metadata = {"embedder": embedder_name, "dim": dim}
        self._collection = self._open()

    def _open(self) -> Any:
        return self._client.get_or_create_collection(
            self.name,
            embedding_function=None,
            metadata=self._metadata,
            configuration={"hnsw": {"space": "cosine", "ef_construction": 200, "ef_search": 200}},
        )

    @property
    def embedder(self) -> tuple[str | None, int | None]:
        """(embedder name, dim) the collection was built with: a mismatch forces a rebuild."""
        meta = self._collection.metadata or {}
        return meta.get("embedder"), meta.get("dim")

    def upsert(self, ids: Sequence[str], embeddings: np.ndarray, documents: Sequence[str],
               metadatas: Sequence[dict[str, Any]]) -> None:
        for start in range(0, len(ids), _BATCH):
            end = start + _BATCH
            self._collection.upsert(
                ids=list(ids[start:end]),
                embeddings=np.asarray(embeddings[start:end], dtype=np.float32),
                documents=list(documents[start:end]),
                metadatas=list(metadatas[start:end]),
            )

    def delete(self, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), _BATCH):
            batch = list(ids[start : start + _BATCH])
            if batch:
                self._collection.delete(ids=batch)

    def query(self, vector: np.ndarray, n: int) -> list[StoredHit]:
        total = self.count()
        if total == 0 or n <= 0:
            return []
        result = self._collection.query(
            query_embeddings=[np.asarray(vector, dtype=np.float32)],
            n_results=min(n, total),
            include=["documents", "metadatas", "distances"],
        )
        return [
            StoredHit(id_, 1.0 - float(dist), doc or "", dict(meta or {}))
            for id_, dist, doc, meta in zip(
                result["ids"][0], result["distances"][0], result["documents"][0], result["metadatas"][0]
            )
        ]

    def embeddings(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        got = self._collection.get(ids=list(ids), include=["embeddings"])
        return {i: np.asarray(e, dtype=np.float32) for i, e in zip(got["ids"], got["embeddings"])}

    def items(self) -> tuple[list[str], list[str], list[dict[str, Any]]]:
        ids: list[str] = []
        docs: list[str] = []
        metas: list[dict[str, Any]] = []
        total = self.count()
        for offset in range(0, total, _BATCH * 5):
            got = self._collection.get(include=["documents", "metadatas"], limit=_BATCH * 5, offset=offset)
            ids += got["ids"]
            docs += [d or "" for d in got["documents"]]
            metas += [dict(m or {}) for m in got["metadatas"]]
        return ids, docs, metas

    def all_embeddings(self) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]:
        """Every (id, vector, metadata): used to derive per-language centroids."""
        ids: list[str] = []
        rows: list[np.ndarray] = []
        metas: list[dict[str, Any]] = []
        total = self.count()
        for offset in range(0, total, _BATCH * 5):
            got = self._collection.get(include=["embeddings", "metadatas"], limit=_BATCH * 5, offset=offset)
            ids += got["ids"]
            rows += [np.asarray(e, dtype=np.float32) for e in got["embeddings"]]
            metas += [dict(m or {}) for m in got["metadatas"]]
        matrix = np.vstack(rows) if rows else np.zeros((0, self._metadata["dim"]), dtype=np.float32)
        return ids, matrix, metas

    def ids(self) -> list[str]:
        out: list[str] = []
        total = self.count()
        for offset in range(0, total, _BATCH * 5):
            out += self._collection.get(include=[], limit=_BATCH * 5, offset=offset)["ids"]
        return out

    def count(self) -> int:
        return int(self._collection.count())

    def reset(self) -> None:
        """Drop and recreate the collection (e.g. when the embedding model changed)."""
        try:
            self._client.delete_collection(self.name)
        except Exception as exc:  # noqa: BLE001 - already gone is fine
            logger.debug("collection %s not deleted: %s", self.name, exc)
        self._collection = self._open()


def _check_writable(path: Path) -> None:
    """Fail early with a clear message rather than deep inside Chroma's SQLite layer."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-probe-{uuid.uuid4().hex}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise StoreUnavailable(
            f"Chroma folder {path} is not writable ({exc.strerror or exc}). Set RELAIS_DATA_DIR to "
            "a writable folder (or fix its permissions), then run `relais ingest` again."
        ) from None


def chroma_client(settings: KnowledgeSettings, path: Path | None = None) -> Any:
    """An embedded client on `path` (default `settings.chroma_dir`), or an HTTP client."""
    # lazy: +6.7 s; the app opens the store in the background warm-up, not at import
    import chromadb
    from chromadb.config import Settings as ChromaSettings  # lazy: same reason

    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    if settings.chroma_host and path is None:
        try:
            client = chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port,
                                         settings=chroma_settings)
            client.heartbeat()
        except Exception as exc:  # noqa: BLE001 - any transport error means "unavailable"
            raise StoreUnavailable(
                f"Chroma server {settings.chroma_host}:{settings.chroma_port} is unreachable "
                f"({type(exc).__name__}: {exc}). Start it or unset CHROMA_HOST to use the local store."
            ) from None
        return client
    target = path or settings.chroma_dir
    _check_writable(target)
    try:
        return chromadb.PersistentClient(path=str(target), settings=chroma_settings)
    except Exception as exc:  # noqa: BLE001
        raise StoreUnavailable(f"cannot open the Chroma store in {target}: {exc}") from None


def open_store(settings: KnowledgeSettings, embedder_name: str, dim: int, *, name: str | None = None,
               path: Path | None = None, client: Any = None) -> ChromaStore:
    """The knowledge-base collection (`RELAIS_COLLECTION`) in the configured Chroma
    (through `client` when the caller already has one)."""
    client = client or chroma_client(settings, path)
    try:
        return ChromaStore(client, name or settings.relais_collection, embedder_name, dim)
    except StoreUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001
        raise StoreUnavailable(f"cannot open Chroma collection {name or settings.relais_collection!r}: {exc}") from None
