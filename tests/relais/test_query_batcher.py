"""Encoder micro-batching: simultaneous question encodings share forward passes, each caller
gets its own vector, errors reach every waiter."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from relais.embeddings import QueryBatcher


def fake_encoder(calls: list[list[str]], delay_s: float = 0.02):
    def encode(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        time.sleep(delay_s)  # a forward pass takes time, so others arrive meanwhile
        return np.array([[float(len(t)), float(i)] for i, t in enumerate(texts)], dtype=np.float32)

    return encode


def test_simultaneous_calls_share_passes_and_get_their_own_rows() -> None:
    calls: list[list[str]] = []
    batcher = QueryBatcher(fake_encoder(calls), threading.Lock(), window_s=0.005)
    texts = [f"question {'x' * i}" for i in range(16)]
    with ThreadPoolExecutor(max_workers=16) as pool:
        vectors = list(pool.map(batcher, texts))
    assert [v[0] for v in vectors] == [float(len(t)) for t in texts]  # each caller: its own text's row
    assert sorted(t for batch in calls for t in batch) == sorted(texts)  # every text encoded once
    assert len(calls) < len(texts) and batcher.batches == len(calls)


def test_a_lone_call_is_one_pass() -> None:
    calls: list[list[str]] = []
    batcher = QueryBatcher(fake_encoder(calls, 0.0), threading.Lock(), window_s=0.001)
    assert batcher("hello")[0] == 5.0 and calls == [["hello"]]


def test_an_encoder_error_reaches_every_waiter() -> None:
    def broken(texts: list[str]) -> np.ndarray:
        time.sleep(0.01)
        raise RuntimeError("encoder down")

    batcher = QueryBatcher(broken, threading.Lock(), window_s=0.005)
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(batcher, f"q{i}") for i in range(4)]
        for future in futures:
            with pytest.raises(RuntimeError, match="encoder down"):
                future.result()
    with pytest.raises(RuntimeError):  # still serving (not stuck leading) after a failure
        batcher("again")


def test_the_question_memo_encodes_a_text_once_and_forgets_the_oldest() -> None:
    from relais.embeddings import QueryMemo

    encoded: list[str] = []

    def encode(text: str) -> np.ndarray:
        encoded.append(text)
        return np.array([float(len(text)), 1.0], dtype=np.float32)

    memo = QueryMemo(size=2)
    first = memo.vector("how much?", encode)
    assert memo.vector("how much?", encode) is first and encoded == ["how much?"]
    assert not first.flags.writeable  # shared by every caller: nobody may change it
    memo.vector("when?", encode)
    memo.vector("where?", encode)  # "how much?" is now the oldest of three: dropped
    memo.vector("how much?", encode)
    assert encoded == ["how much?", "when?", "where?", "how much?"]
    memo.clear()
    memo.vector("when?", encode)
    assert encoded[-1] == "when?" and (memo.hits, memo.misses) == (1, 5)
