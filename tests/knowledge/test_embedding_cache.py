"""The embedding cache's SQLite file: writes commit even while every cursor stays referenced."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from knowledge.embedding_cache import EmbeddingCache

KEPT: list[sqlite3.Cursor] = []


class KeepCursors(sqlite3.Connection):
    """A connection whose cursors outlive their statements, as when a profiler's stack sample or a
    traceback holds the frame that made them."""

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        cursor = super().execute(sql, *args)
        KEPT.append(cursor)
        return cursor


def test_vectors_are_written_and_read_back_while_cursors_are_kept(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: connect(*a, factory=KeepCursors, **k))
    cache = EmbeddingCache(tmp_path, "toy", 3)
    vectors = {"a": np.array([1, 0, 0], np.float32), "b": np.array([0, 1, 0], np.float32)}
    cache.put_many(list(vectors.items()))  # failed with "SQL statements in progress" on the pragma
    cache.put_many([("c", np.array([0, 0, 1], np.float32))])
    found = cache.get_many(["a", "b", "c", "z"])
    assert sorted(found) == ["a", "b", "c"]
    assert np.array_equal(found["b"], vectors["b"])
    assert KEPT  # the cursors really were kept alive
