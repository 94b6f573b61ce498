"""Hybrid retrieval over the knowledge base: dense (Chroma) + BM25, fused; one shared instance.

`KnowledgeBase.search` is the single retrieval path: the chatbot, the offline answer engine,
the KB-update graph and `relais eval retrieval` all call it, so what we measure is what users
get. Modes (`RETRIEVAL_MODE`): `dense`, `bm25`, `hybrid` (default).

Minimum relevance is a bar on the *dense cosine similarity* between question and chunk, so an
off-topic question returns nothing and the answer engines can say so honestly. A hit must have
- cosine ≥ `RETRIEVAL_MIN_SCORE` (default 0.25; MiniLM scores unrelated English text ~0.0-0.2
  and on-topic passages ~0.45-0.85), and
- cosine ≥ baseline + `min_margin` (0.2), *or* contain at least half (idf-weighted) of the
  question's content words. The baseline is the question's mean cosine to text in its own
  language: the base's chunks in that language plus everyday reference sentences as a prior
  (`knowledge.calibration`). MiniLM is English-only and scores any French question ~0.3-0.45
  against any French passage, so the absolute bar alone would let "Quelle est la capitale de
  l'Australie ?" through; against the baseline, on-topic French questions stand out by
  0.2-0.4 and off-topic ones by 0.15 at most. For English the baseline is ~0.05, so this
  second test changes nothing there.
Both apply in `dense` and `hybrid` modes (`min_score=0` turns the bar off, as the evaluation
does); `bm25` mode has no calibrated score and only drops chunks sharing no term with the question.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np

from knowledge.calibration import REFERENCE_SENTENCES, baseline_similarity
from knowledge.chunking import Chunk
from knowledge.cross_language import (
    CROSS_LANGUAGE_MARGIN_SCALE,
    SAME_LANGUAGE_MARGIN_SCALE,
    CrossLanguageIndex,
    document_languages,
    needs_cross_index,
    reads,
)
from knowledge.encoder_choice import resolve_model
from knowledge.fusion import convex_combination, reciprocal_rank_fusion
from knowledge.language import detect_language
from knowledge.lexical import META_FILE, LexicalIndex, fingerprint
from knowledge.retrieval_index import (
    RetrievalConfig,
    build_lexical_index,
    chunk_payload,
    shared_titles,
)
from knowledge.settings import KnowledgeSettings, knowledge_settings
from knowledge.store import ChromaStore, CountMemo, StoredHit, chroma_client, open_store
from relais import tracing
from relais.embeddings import Embedder, get_embedder

MODES = ("dense", "bm25", "hybrid")
RUNNERS_UP = 3  # chunks ranked right behind a search's hits, kept for the answer composer
DENSE_RUNNERS_UP = 3  # …and the chunks closest to the question by the encoder alone, when fusion left them out
RUNNERS_UP_MEMORY = 256  # questions whose runners-up are remembered (the latest ones)


@dataclass
class Hit:
    """A retrieved chunk. `score` is the ranking score of the mode used (fused in hybrid);
    `dense_score` the cosine similarity to the question (None in bm25 mode)."""

    text: str
    source: str
    title: str
    section: str
    chunk_index: int
    score: float
    dense_score: float | None = None
    lexical_score: float | None = None
    id: str = ""

    @property
    def heading(self) -> str:
        return self.chunk().heading

    def chunk(self) -> Chunk:
        return Chunk(self.text, self.source, self.title, self.section, self.chunk_index)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class KnowledgeBase:
    """Search the indexed knowledge base. Create once per process (`get_knowledge_base`)."""

    def __init__(self, settings: KnowledgeSettings | None = None, *, embedder: Embedder | None = None,
                 store: ChromaStore | None = None, config: RetrievalConfig | None = None,
                 lexical_dir: Path | None = None) -> None:
        self.settings = settings or knowledge_settings()
        self.embedder_is_auto = embedder is None and self.settings.chosen_encoder is None
        client = chroma_client(self.settings) if store is None else None  # one client for both steps
        self._client = client
        self.embedder = embedder or get_embedder(resolve_model(self.settings, client))
        self.store = store or open_store(self.settings, self.embedder.name, self.embedder.dim, client=client)
        self.config = config or RetrievalConfig.from_settings(self.settings)
        self.lexical_dir = lexical_dir or (self.settings.lexical_dir / self.store.name)
        self._lexical: LexicalIndex | None = None
        self._payloads: dict[str, dict[str, Any]] = {}
        self._shared_titles: set[str] = set()
        self._cross: CrossLanguageIndex | None = None
        self._stamp: float | None = None
        self._lock = threading.Lock()
        self._runners_up: dict[str, list[Hit]] = {}  # question → ranked close behind its hits (bounded)
        self.chunk_count = CountMemo(lambda: self.store.count(), self._meta_stamp)  # asked often per question
        self._cross_count = CountMemo(lambda: self._cross.count() if self._cross else 0, self._meta_stamp)

    def use_embedder(self, embedder: Embedder) -> None:
        """Switch encoders before the first ingest (`knowledge.encoder_choice`): the store is
        reopened for the new model; ingest resets it, as for any model change."""
        with self._lock:
            self.embedder = embedder
            self.store = open_store(self.settings, embedder.name, embedder.dim)
            self._lexical, self._payloads, self._stamp = None, {}, None
            self.chunk_count.forget()

    # --- lexical index lifecycle -----------------------------------------------------------
    def refresh_lexical(self) -> LexicalIndex:
        """Rebuild and save the BM25 index from the store (after an ingest)."""
        with self._lock:
            return self._rebuild_lexical()

    def _rebuild_lexical(self) -> LexicalIndex:  # under self._lock
        index = build_lexical_index(self.store, self.config.lexical)
        index.save(self.lexical_dir)
        self._install(index, self._meta_stamp())
        return index

    def _meta_stamp(self) -> float | None:
        try:
            return (self.lexical_dir / META_FILE).stat().st_mtime_ns
        except OSError:
            return None

    def _install(self, index: LexicalIndex, stamp: float | None) -> None:
        self._payloads = {p["id"]: p for p in (index.payloads or [])}
        self._shared_titles = shared_titles(self._payloads.values())
        self._lexical, self._stamp = index, stamp
        self.chunk_count.forget()
        self._cross_count.forget()

    @property
    def cross(self) -> CrossLanguageIndex | None:
        """The multilingual twin index, when people may ask in a language the encoder does not
        read (`knowledge.cross_language`); None otherwise, or for a store given by the caller."""
        if self._client is None or not needs_cross_index(self.settings, self.embedder.name, self.document_languages()):
            return None
        if self._cross is None:
            self._cross = CrossLanguageIndex(self.settings, client=self._client)
        return self._cross

    def document_languages(self) -> set[str]:
        """The languages a real share of the indexed chunks is written in."""
        index = self.lexical() if self.chunk_count() else None
        return document_languages((index.extras.get("centroids") if index else None) or {})

    def _cross_for(self, query: str) -> tuple[CrossLanguageIndex | None, str | None]:
        """(the cross index, the language its hits must be in) for a question the main path
        serves poorly; (None, None) for one it serves as before.

        A question in none of the documents' languages searches every chunk of the twin; one in
        a document language the main encoder does not read (French on a mostly English base
        with MiniLM) searches the twin's chunks of its own language only."""
        cross = self.cross
        if cross is None or self._cross_count() == 0:
            return None, None
        language = detect_language(query)
        in_documents = language in self.document_languages()
        if in_documents and reads(self.embedder.name, language):
            return None, None
        return cross, (language if in_documents else None)

    def question_encoder(self, query: str) -> tuple[Embedder, float] | None:
        """(encoder, cosine scale) that reads `query` when search sends it to the multilingual
        twin (the answer composer then scores sentences with it too); None when the main
        encoder reads it. The scale is how much lower the twin's cosines run than the main
        encoder's for the same match (`knowledge.cross_language`)."""
        cross, own_language = self._cross_for(query)
        if cross is None:
            return None
        return cross.embedder, SAME_LANGUAGE_MARGIN_SCALE if own_language else CROSS_LANGUAGE_MARGIN_SCALE

    def citation_title(self, payload: dict[str, Any]) -> str:
        """The title a citation shows: a title that several documents share gets the section
        path ("Overview — Periodic jobs") or, without one, its folder ("Overview (api)")."""
        title = payload["title"]
        if title not in self._shared_titles:
            return title
        if payload.get("section"):
            return f"{title} — {payload['section'].replace(' > ', ' — ')}"
        parent = PurePosixPath(payload["source"]).parent.name
        return f"{title} ({parent or PurePosixPath(payload['source']).stem})"

    def lexical(self) -> LexicalIndex | None:
        """The BM25 index, reloaded when another process re-ingested, rebuilt when stale.

        Simultaneous first callers build it once: the others wait and take it (five concurrent
        first questions on a fresh instance rebuilt it five times, one after another)."""
        stamp = self._meta_stamp()
        if self._lexical is not None and stamp == self._stamp:
            return self._lexical
        with self._lock:
            stamp = self._meta_stamp()
            if self._lexical is not None and stamp == self._stamp:
                return self._lexical  # loaded or rebuilt by another thread while this one waited
            index = LexicalIndex.load(self.lexical_dir) if stamp is not None else None
            usable = (index is not None and index.params == self.config.lexical
                      and index.payloads is not None
                      and index.fingerprint == fingerprint(self.store.ids()))
            if usable:
                self._install(index, stamp)
                return index
            if self.store.count() == 0:
                return None
            return self._rebuild_lexical()

    # --- whole documents (the answer composer follows "Read X" pointers) ------------------
    def _by_source(self) -> dict[str, list[dict[str, Any]]]:
        index = self.lexical()
        cached = getattr(self, "_source_index", None)
        if cached is not None and cached[0] is index:
            return cached[1]
        grouped: dict[str, list[dict[str, Any]]] = {}
        for payload in self._payloads.values():
            grouped.setdefault(payload["source"], []).append(payload)
        for chunks in grouped.values():
            chunks.sort(key=lambda p: p["chunk_index"])
        self._source_index = (index, grouped)
        return grouped

    def source_chunks(self, source: str) -> list[Hit]:
        """Every chunk of one document, in order (empty when the base does not hold it)."""
        return [Hit(p["text"], p["source"], p["title"], p["section"], p["chunk_index"], 0.0, None, None, p["id"])
                for p in self._by_source().get(source, [])]

    def articles_writing(self, snippet: str) -> int:
        """How many documents hold `snippet` word for word: a code block on many pages ("chainlit run
        app.py -w") is the docs' boilerplate, never the example one page is about. Remembered per
        snippet for the loaded index."""
        by_source = self._by_source()
        memo = getattr(self, "_writing_memo", None)
        if memo is None or memo[0] is not by_source:
            memo = self._writing_memo = (by_source, {})
        if snippet not in memo[1]:
            memo[1][snippet] = sum(any(snippet in p["text"] for p in chunks) for chunks in by_source.values())
        return memo[1][snippet]

    def source_titles(self) -> dict[str, str]:
        """Document title → source path (a pointer may name an article without linking it)."""
        return {chunks[0]["title"].strip().lower(): source for source, chunks in self._by_source().items()
                if chunks and chunks[0]["title"]}

    # --- search ----------------------------------------------------------------------------
    def is_empty(self) -> bool:
        return self.chunk_count() == 0

    def search(self, query: str, top_k: int | None = None, mode: str | None = None, *,
               min_score: float | None = None, group_by_source: bool = False) -> list[Hit]:
        """The `top_k` most relevant chunks for `query` (one per source if `group_by_source`).

        `min_score` overrides `RETRIEVAL_MIN_SCORE`; 0 turns the relevance bar off.
        """
        query = (query or "").strip()[: self.settings.max_question_chars]
        mode = mode or self.settings.retrieval_mode
        if mode not in MODES:
            raise ValueError(f"unknown retrieval mode {mode!r}; choose one of {', '.join(MODES)}")
        top_k = top_k or self.settings.retrieval_top_k
        min_score = self.settings.retrieval_min_score if min_score is None else min_score
        if not query or top_k <= 0 or self.is_empty():
            return []
        cross, own_language = self._cross_for(query) if mode in ("dense", "hybrid") else (None, None)
        hits, runners = self._search(query, top_k, mode, min_score, group_by_source, cross, own_language)
        if own_language is not None:
            # a bilingual base covers some topics in one language only: when nothing in the
            # question's own language passes, or an article in another language matches the
            # question better than every own-language one, that article is offered too
            others, _ = self._search(query, top_k, mode, min_score, group_by_source, cross, None)
            hits = with_better_in_other_language(hits, others, top_k) if hits else others
        if not group_by_source and min_score > 0:
            self._remember_runners_up(query, [h for h in runners if h.id not in {h.id for h in hits}])
        return hits

    def runners_up(self, query: str) -> list[Hit]:
        """The chunks fusion ranked right behind the last search's hits for `query` (at most
        `RUNNERS_UP`), whether the relevance bar dropped them or `top_k` cut them: a long list
        (a CLI's options, a FAQ page) reads far from any one question as a whole, and the
        answer composer reads its units one by one. Then the `DENSE_RUNNERS_UP` chunks closest to the
        question by the encoder alone, when fusion left them out: shared words (a question's "files",
        "attached") can outvote the article that answers in other words ("Files will not be
        deleted" under Premium renewal). Empty for a question not searched."""
        query = (query or "").strip()[: self.settings.max_question_chars]
        return list(self._runners_up.get(query, []))

    def _remember_runners_up(self, query: str, hits: list[Hit]) -> None:
        with self._lock:
            self._runners_up.pop(query, None)
            self._runners_up[query] = hits
            while len(self._runners_up) > RUNNERS_UP_MEMORY:
                self._runners_up.pop(next(iter(self._runners_up)))

    def _search(self, query: str, top_k: int, mode: str, min_score: float, group_by_source: bool,
                cross: CrossLanguageIndex | None, own_language: str | None) -> tuple[list[Hit], list[Hit]]:
        """(the hits, the chunks ranked right behind them: `runners_up`)."""
        cfg = self.config
        depth = max(cfg.depth, top_k * (4 if group_by_source else 2))
        key: Callable[[dict[str, Any]], str] = (
            (lambda p: p["source"]) if group_by_source else (lambda p: p["id"]))

        payloads: dict[str, dict[str, Any]] = {}  # fusion key → chunk payload (best chunk)
        dense: dict[str, float] = {}
        lexical: dict[str, float] = {}
        qvec: np.ndarray | None = None
        space = cross.store if cross is not None else self.store  # the vectors qvec compares with
        if mode in ("dense", "hybrid"):
            with tracing.span("dense", cross_language=cross is not None):
                qvec = cross.embed_query(query) if cross is not None else self.embedder.embed_query(query)
                dense = self._dense(qvec, depth, key, payloads, space, own_language)
        if mode in ("bm25", "hybrid"):
            with tracing.span("bm25"):
                lexical = self._lexical_hits(query, depth, key, payloads)
        with tracing.span("fusion", mode=mode):
            fused = self._fuse(mode, dense, lexical)
        cosines = dict(dense)  # the question's own cosine, for the relevance bar
        closest = sorted(dense, key=dense.__getitem__, reverse=True)[:DENSE_RUNNERS_UP]  # best by meaning alone
        if mode == "hybrid" and cfg.feedback_docs > 0 and fused and qvec is not None and cross is None:
            dense, lexical = self._feedback(query, qvec, fused, dense, lexical, depth, key, payloads)
            fused = self._fuse(mode, dense, lexical)
            cosines = {k: v for k, v in cosines.items() if k in fused}

        ranked = sorted(fused, key=lambda k: fused[k], reverse=True)
        if own_language is not None:  # each language answers from its own articles
            ranked = [k for k in ranked if payloads[k]["language"] == own_language]
        behind = ranked[: top_k + RUNNERS_UP]
        if qvec is not None and min_score > 0:
            ranked = ranked[: top_k * 3]
            self._fill_dense_scores(qvec, ranked, payloads, cosines, space)
            if cross is None:
                bar = self._baseline(query, qvec) + cfg.min_margin
            elif own_language is not None:  # the twin's cosines run lower: floor and margin scaled alike
                bar = cross.same_language_bar(qvec, cfg.min_margin, own_language)
                min_score *= SAME_LANGUAGE_MARGIN_SCALE
            else:
                bar = cross.bar(qvec, cfg.min_margin)
            ranked = [k for k in ranked if self._relevant(query, cosines.get(k, -1.0), payloads[k], min_score, bar)]
        def hit(k: str) -> Hit:
            p = payloads[k]
            return Hit(p["text"], p["source"], self.citation_title(p), p["section"], p["chunk_index"],
                       float(fused[k]), cosines.get(k), lexical.get(k), p["id"])

        kept = ranked[:top_k]
        runners = [k for k in behind if k not in kept][:RUNNERS_UP]
        # words can outvote meaning in fusion: the composer still reads the closest chunks by meaning
        runners += [k for k in closest if k not in kept and k not in runners]
        return [hit(k) for k in kept], [hit(k) for k in runners]

    def _dense(self, qvec: np.ndarray, depth: int, key: Callable[[dict[str, Any]], str],
               payloads: dict[str, dict[str, Any]], store: ChromaStore | None = None,
               language: str | None = None) -> dict[str, float]:
        """Fusion key → best cosine among the `depth` nearest chunks (of `store`, default the
        main one; only those written in `language` when given)."""
        scores: dict[str, float] = {}
        for hit in (store or self.store).query(qvec, depth):
            payload = chunk_payload(hit.id, hit.document, hit.metadata)
            if language is not None and payload["language"] != language:
                continue
            k = key(payload)
            if k not in scores:
                scores[k] = hit.score
                payloads.setdefault(k, payload)
        return scores

    def _lexical_hits(self, query: str, depth: int, key: Callable[[dict[str, Any]], str],
                      payloads: dict[str, dict[str, Any]], feedback_ids: list[str] | None = None
                      ) -> dict[str, float]:
        """Fusion key → best BM25 score among the `depth` best chunks."""
        index = self.lexical()
        if index is None:
            return {}
        rows = [r for r in (index.row_of(i) for i in feedback_ids or []) if r is not None]
        scores: dict[str, float] = {}
        for row, score in index.search(query, depth, rows or None):
            payload = self._payloads.get(index.ids[row])
            if payload is None:
                continue
            k = key(payload)
            if k not in scores:
                scores[k] = score
                payloads.setdefault(k, payload)
        return scores

    def _feedback(self, query: str, qvec: np.ndarray, fused: dict[str, float], dense: dict[str, float],
                  lexical: dict[str, float], depth: int, key: Callable[[dict[str, Any]], str],
                  payloads: dict[str, dict[str, Any]]) -> tuple[dict[str, float], dict[str, float]]:
        """Second round seeded by the top fused hits: Rocchio on the query vector, RM3 terms."""
        cfg = self.config
        top = sorted(fused, key=lambda k: fused[k], reverse=True)[: cfg.feedback_docs]
        chunk_ids = [payloads[k]["id"] for k in top]
        if cfg.dense_feedback > 0:
            vectors = list(self.store.embeddings(chunk_ids).values())
            if vectors:
                moved = qvec + cfg.dense_feedback * np.mean(vectors, axis=0)
                dense = self._dense(moved / np.linalg.norm(moved), depth, key, payloads)
        if cfg.lexical_feedback:
            lexical = self._lexical_hits(query, depth, key, payloads, chunk_ids)
        return dense, lexical

    async def asearch(self, query: str, top_k: int | None = None, mode: str | None = None,
                      **kwargs: Any) -> list[Hit]:
        """`search` off the event loop (encoding and Chroma are blocking)."""
        return await asyncio.to_thread(self.search, query, top_k, mode, **kwargs)

    def _fuse(self, mode: str, dense: dict[str, float], lexical: dict[str, float]) -> dict[str, float]:
        if mode == "dense":
            return dict(dense)
        if mode == "bm25":
            return dict(lexical)
        cfg = self.config
        if cfg.fusion == "rrf":
            rank = lambda scores: sorted(scores, key=lambda k: scores[k], reverse=True)
            return reciprocal_rank_fusion(
                [(rank(dense), cfg.dense_weight), (rank(lexical), cfg.lexical_weight)], k=cfg.rrf_k)
        return convex_combination([(dense, cfg.dense_weight), (lexical, cfg.lexical_weight)], cfg.normalise)

    def _baseline(self, query: str, qvec: np.ndarray) -> float:
        """The question's mean cosine to text in its language (see module doc)."""
        language = detect_language(query)
        reference = baseline_similarity(self.embedder, qvec, language)
        index = self.lexical()
        stats = ((index.extras.get("centroids") if index else None) or {}).get(language)
        if not stats:
            return reference
        n, prior = int(stats["count"]), len(REFERENCE_SENTENCES[language])
        own = float(np.dot(np.asarray(stats["mean"], dtype=np.float32), qvec))
        return (n * own + prior * reference) / (n + prior)

    def _relevant(self, query: str, cosine: float, payload: dict[str, Any], min_score: float,
                  bar: float) -> bool:
        """The relevance bar of the module doc, for one candidate."""
        if cosine < min_score:
            return False
        if cosine >= bar:
            return True
        index = self.lexical()
        chunk = Chunk(payload["text"], payload["source"], payload["title"], payload["section"],
                      payload["chunk_index"], payload["language"])
        return index is not None and index.coverage(query, chunk.index_text, chunk.language) >= self.config.min_coverage

    def _fill_dense_scores(self, qvec: np.ndarray, keys: list[str],
                           payloads: dict[str, dict[str, Any]], dense: dict[str, float],
                           store: ChromaStore | None = None) -> None:
        """Cosine for lexical-only candidates, so the relevance bar applies to every hit."""
        missing = {payloads[k]["id"]: k for k in keys if k not in dense}
        for chunk_id, vector in (store or self.store).embeddings(list(missing)).items():
            dense[missing[chunk_id]] = float(np.dot(vector, qvec))


_INSTANCES: dict[tuple[Any, ...], KnowledgeBase] = {}
_INSTANCES_LOCK = threading.Lock()


OTHER_LANGUAGE_EXTRA = 2  # other-language articles added after a question's own-language hits


def with_better_in_other_language(own: list[Hit], others: list[Hit], top_k: int) -> list[Hit]:
    """`own` (the question's language) with the hits of `others` (all languages) whose cosine beats
    every own-language one: at most `OTHER_LANGUAGE_EXTRA`, in place of the last own hits."""
    best = max((h.dense_score for h in own if h.dense_score is not None), default=None)
    if best is None:
        return own
    ids = {h.id for h in own}
    better = [h for h in others if h.id not in ids and h.dense_score is not None and h.dense_score > best]
    better = better[:OTHER_LANGUAGE_EXTRA]
    return own[: max(1, top_k - len(better))] + better


def get_knowledge_base(settings: KnowledgeSettings | None = None) -> KnowledgeBase:
    """The process-wide KnowledgeBase for these settings (model and clients built once)."""
    settings = settings or knowledge_settings()
    key = (str(settings.data_dir), settings.chroma_host, settings.chroma_port,
           settings.relais_collection, settings.relais_embedding_model)
    with _INSTANCES_LOCK:
        kb = _INSTANCES.get(key)
        if kb is None:
            kb = _INSTANCES[key] = KnowledgeBase(settings)
        return kb


def clear_knowledge_base_cache() -> None:
    """Forget shared instances (tests; after the data dir was wiped)."""
    with _INSTANCES_LOCK:
        _INSTANCES.clear()


__all__ = [
    "MODES",
    "Hit",
    "KnowledgeBase",
    "RetrievalConfig",
    "StoredHit",
    "build_lexical_index",
    "clear_knowledge_base_cache",
    "get_knowledge_base",
]
