"""Ingest's phases: a bar per phase with real counts, and the seconds each phase took."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from knowledge.embedding_cache import embed_texts
from knowledge.progress import Phases


class HashEmbedder:
    """A deterministic encoder (sha256 of the text): the cache and the counts without a model."""

    name, dim = "test-hash", 8

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def embed_documents(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        self.encoded += list(texts)
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[: self.dim * 4], dtype=np.uint32)
                for t in texts]
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_a_phase_draws_a_bar_with_its_counts_and_records_its_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    phases = Phases(enabled=True)
    with phases.phase("Reading and chunking files", total=3, unit="file") as bar:
        for _ in range(3):
            bar.update(1)
    with phases.phase("Building the BM25 index", total=1, unit="index") as bar:
        bar.update(1)
    err = capsys.readouterr().err
    assert "Reading and chunking files" in err and "3/3" in err and "file" in err
    assert list(phases.seconds) == ["Reading and chunking files", "Building the BM25 index"]
    assert all(s >= 0 for s in phases.seconds.values())
    assert phases.summary().startswith("Reading and chunking files ")


def test_a_disabled_phase_draws_nothing_but_still_times(capsys: pytest.CaptureFixture[str]) -> None:
    phases = Phases(enabled=False)
    with phases.phase("Embedding chunks (minilm)", unit="chunk") as bar:
        bar.total = 5
        bar.update(5)
    assert capsys.readouterr().err == ""
    assert "Embedding chunks (minilm)" in phases.seconds


def test_embed_texts_counts_only_what_it_encodes_and_cached_texts_as_done(tmp_path: Path) -> None:
    encoder = HashEmbedder()
    texts = [f"sentence number {i}" for i in range(10)]
    phases = Phases(enabled=False)
    with phases.phase("first", unit="text") as bar:  # no total: it becomes the texts to encode
        embed_texts(encoder, texts[:4], tmp_path)
        embed_texts(encoder, texts, tmp_path, progress=bar)
    assert (bar.total, len(encoder.encoded)) == (6, 10)

    class Bar:
        total, n = 10, 0

        def update(self, k: int = 1) -> None:
            self.n += k

        def refresh(self) -> None:
            pass

    given = Bar()  # a total set by the caller: the cached texts count as done at once
    embed_texts(encoder, texts, tmp_path, progress=given)
    assert given.n == 10 and len(encoder.encoded) == 10  # nothing encoded twice
