"""Fill the composer's unit-vector cache for the whole knowledge base, before the first questions.

The offline composer (`knowledge.composer`) scores the quotable units of retrieved passages by
encoding "heading: unit" texts through the content-hash cache (`knowledge.embedding_cache`).
After a fresh ingest that cache is empty, so the first simultaneous questions encoded their
passages one question at a time on the encoder lock (16 questions at once: first-round p50
22–29 s instead of ~1 s warm), and encoded shared passages twice. `prefill_unit_vectors` walks
every chunk with the composer's own `encoded_texts` (the exact texts it will look up) and
encodes what is missing in batches, with the multilingual twin too for the articles in a language the main encoder does not read (their questions are scored with
both). Where it runs, measured (demo KB, one run, load 13-17): it costs 46.8 s CPU, about
as much as the chunks' own encoding, and saves 37.8 s CPU over the first 20 questions (54.3 s
cold → 16.5 s). It pays off, but not before "ready": the app runs it in the background after
its warm start (`prefill_once`, one instance at a time, yielding the encoder to questions between
small blocks), so neither ingest nor start-up waits for it; `relais ingest` runs it too when
`RELAIS_PREFILL_BUDGET_S` > 0 (off by default).
"""

from __future__ import annotations

import fcntl
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge.composer import article_titles, encoded_texts
from knowledge.cross_language import reads
from knowledge.embedding_cache import EmbeddingCache, embed_texts, text_key
from knowledge.progress import Phases
from knowledge.retrieval import Hit

logger = logging.getLogger(__name__)

@dataclass
class Prefill:
    texts: int = 0  # texts the composer may encode (summed over the encoders)
    encoded: int = 0  # of which missing from the cache and encoded now
    seconds: float = 0.0
    stopped: bool = False  # the time budget ran out (the rest is encoded lazily, as before)


def _chunks(kb: Any) -> Iterator[tuple[Hit, str]]:
    """Every chunk of the base with its language, article by article."""
    index = kb.lexical()
    languages: dict[str, str] = {}
    for payload in (index.payloads or []) if index is not None else []:
        languages.setdefault(payload["source"], payload.get("language") or "")
    for source, language in languages.items():
        for chunk in kb.source_chunks(source):
            yield chunk, language


def unit_texts(kb: Any, languages: set[str] | None = None) -> list[str]:
    """Every "heading: unit" text (and typed clause) the composer may score, once each, in
    document order; only from articles in `languages` when given."""
    titles = article_titles(kb)
    texts: dict[str, None] = {}
    for chunk, language in _chunks(kb):
        if languages is None or language in languages:
            texts.update(dict.fromkeys(encoded_texts(chunk, kb, titles)))
    return list(texts)


def _plan(kb: Any) -> list[tuple[Any, list[str]]]:
    """(encoder, texts): the main encoder for every article; the multilingual twin, when the base
    keeps one, for the articles in a language the main encoder does not read (their questions
    are scored with both). A question routed to the twin across languages (a French question
    answered from English articles) still encodes those lazily: encoding every article twice
    would double the work for a rare path."""
    plan = [(kb.embedder, unit_texts(kb))]
    cross = getattr(kb, "cross", None)
    if cross is not None and cross.count() > 0:
        unread = {lang for lang in kb.document_languages() if not reads(kb.embedder.name, lang)}
        if unread:
            plan.append((cross.embedder, unit_texts(kb, unread)))
    return plan


@dataclass(frozen=True)
class Pacing:
    """How the prefill shares the machine: `block` texts per encoder call, a `pause_s` sleep after
    each, and `before_block()` called before each (a serving app blocks it while turns run)."""

    block: int = 128
    pause_s: float = 0.0
    before_block: Callable[[], object] | None = None


def prefill_unit_vectors(kb: Any, cache_dir: Path, *, budget_s: float | None = None,
                         block: int = 128, phases: Phases | None = None, pause_s: float = 0.0,
                         before_block: Callable[[], object] | None = None) -> Prefill:
    """Encode the composer's unit texts missing from the cache under `cache_dir`, in blocks of
    `block` texts; stop between blocks once `budget_s` seconds have passed (None: no limit).
    Idempotent: a second call finds everything cached and encodes nothing. `phases`: one
    progress bar per encoder (ingest's). `pause_s`: a sleep after each block, so a question
    waiting for the encoder's lock gets it before the next block; `before_block()`: called
    before each block (the app's waits while turns run: `chatbot.activity`)."""
    started = time.perf_counter()
    result = Prefill()
    if kb.is_empty():
        return result
    phases = phases or Phases(enabled=False)
    pacing = Pacing(block, pause_s, before_block)
    for encoder, texts in _plan(kb):
        with phases.phase(f"Composer sentences ({encoder.name})", unit="text") as bar:
            _prefill_one(encoder, texts, cache_dir, pacing, budget_s, started, result, bar)
    result.seconds = time.perf_counter() - started
    logger.info("composer unit vectors: %d texts, %d encoded in %.1f s%s", result.texts, result.encoded,
                result.seconds, " (time budget reached)" if result.stopped else "")
    return result


def _prefill_one(encoder: Any, texts: list[str], cache_dir: Path, pacing: Pacing,
                 budget_s: float | None, started: float, result: Prefill, bar: Any) -> None:
    """One encoder's share of the prefill: its missing texts, longest first, block by block."""
    block = pacing.block
    result.texts += len(texts)
    cache = EmbeddingCache(cache_dir, encoder.name, encoder.dim)
    known = cache.get_many([text_key(t) for t in texts])
    # longest first across the whole base, as `embed_texts` sorts inside one call: each batch
    # then pads to similar lengths (in document order, code blocks next to short sentences
    # made every batch pad to the block's length)
    missing = sorted((t for t in texts if text_key(t) not in known), key=len, reverse=True)
    bar.total = len(missing)
    bar.refresh()
    for start in range(0, len(missing), block):
        if budget_s is not None and time.perf_counter() - started > budget_s:
            result.stopped = True
            bar.set_postfix_str("time budget reached: the rest is encoded when first asked")
            break
        if pacing.before_block is not None:
            pacing.before_block()
        part = missing[start : start + block]
        embed_texts(encoder, part, cache_dir, progress=bar)
        result.encoded += len(part)
        if pacing.pause_s:
            time.sleep(pacing.pause_s)


def prefill_once(kb: Any, cache_dir: Path, *, block: int = 16, pause_s: float = 0.02,
                 before_block: Callable[[], object] | None = None) -> Prefill | None:
    """`prefill_unit_vectors` in the background of a serving process: small blocks (a question
    waits for at most one, ~0.5 s of MiniLM), a pause after each, `before_block()` before each
    (the app's waits until no turn runs), and only one process at a time per cache (an
    exclusive lock file beside it: instances sharing a data folder share the cache, the others
    find it filled). None when another process holds the lock."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / ".prefill.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None
        return prefill_unit_vectors(kb, cache_dir, block=block, pause_s=pause_s, before_block=before_block)
