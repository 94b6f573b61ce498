"""The lexical side of hybrid search: BM25 (bm25s) over stemmed, accent-folded tokens.

Each chunk is analysed in its own language (English or French Snowball stemmer from PyStemmer,
that language's stop words); a query is analysed with the stemmer of every language present in
the index and the tokens are merged, so a mixed EN/FR knowledge base matches a question in
either language without having to trust a language guess on a five-word question. Accents are
folded before stemming, so "resilier" finds "résilier".

The index is derived data: it is rebuilt from the vector store's chunks after each ingest and
saved under `settings.lexical_dir`, tagged with a fingerprint of the chunk ids it covers.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
import shutil
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import Stemmer

from knowledge.language import detect_language, fold_accents

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_STEMMER_NAMES = {"en": "english", "fr": "french"}
META_FILE = "relais-lexical.json"


@dataclass(frozen=True)
class LexicalParams:
    """BM25 and analysis settings (chosen on SciFact train; see the knowledge README section)."""

    k1: float = 0.9  # Anserini's defaults; best of the few tried on SciFact train
    b: float = 0.4
    title_weight: int = 1  # how many times the heading line counts
    stopwords: str = "plus"  # "plus" (bm25s' longer English list) | "short" | "none"
    prf_docs: int = 0  # pseudo-relevance feedback (RM3-style); 0 = off
    prf_terms: int = 10
    prf_weight: float = 0.5  # weight of the original query vs. the expansion terms
    method: str = "lucene"  # bm25s scoring variant: lucene | robertson | atire | bm25l | bm25+


@cache
def _stemmer(language: str):
    return Stemmer.Stemmer(_STEMMER_NAMES.get(language, "english"))


# Question words and light verbs that bm25s' lists lack: they carry no topic in a help-center query.
_EXTRA_STOPWORDS = {
    "en": ("much", "many"),
    "fr": ("combien", "comment", "pourquoi", "quand", "quel", "quelle", "quels", "quelles", "où",
           "faire", "peux", "peut", "puis", "dois", "doit", "faut", "a", "est-ce"),
}


@cache
def stop_words(language: str, kind: str) -> frozenset[str]:
    # lazy: bm25s +3.4 s; loaded by the warm-up, not by `import chatbot.app`
    from bm25s import stopwords as sw

    if kind == "none":
        return frozenset()
    if language == "fr":
        words: Iterable[str] = (*sw.STOPWORDS_FRENCH, *_EXTRA_STOPWORDS["fr"])
    else:
        base = sw.STOPWORDS_EN_PLUS if kind == "plus" else sw.STOPWORDS_EN
        words = (*base, *_EXTRA_STOPWORDS["en"]) if kind == "plus" else base
    return frozenset(fold_accents(w) for w in words)


def analyse(text: str, language: str, stopwords: str = "plus", extra_stop: frozenset[str] = frozenset()) -> list[str]:
    """Tokens of `text`: accent-folded lower-case words minus stop words, stemmed.

    Folding comes first so "resilier" and "résilier" always give the same stem.
    """
    stop = stop_words(language, stopwords) | extra_stop
    raw = [w for w in _TOKEN.findall(fold_accents(text)) if w not in stop]
    return _stemmer(language).stemWords(raw)


def analyse_query(text: str, languages: Sequence[str], stopwords: str = "plus") -> list[str]:
    """Query tokens under every index language, merged (first language's order kept)."""
    languages = sorted(languages or ["en"], key=lambda lang: lang != detect_language(text))
    stop = frozenset().union(*(stop_words(lang, stopwords) for lang in languages))
    tokens = analyse(text, languages[0], stopwords, stop)  # the query's own language, repeats kept
    known = set(tokens)
    for lang in languages[1:]:
        for token in analyse(text, lang, stopwords, stop):
            if token not in known:
                known.add(token)
                tokens.append(token)
    return tokens


def fingerprint(ids: Iterable[str]) -> str:
    """A stable digest of the chunk ids an index covers (detects a stale lexical index)."""
    digest = hashlib.sha256()
    for id_ in sorted(ids):
        digest.update(id_.encode("utf-8") + b"\0")
    return digest.hexdigest()


class LexicalIndex:
    """BM25 over chunks; `ids[i]` is the chunk id of row i, `payloads[i]` optional row data."""

    def __init__(self, retriever, ids: list[str], languages: list[str], params: LexicalParams,
                 fingerprint_: str, payloads: list[dict] | None = None,
                 extras: dict[str, Any] | None = None) -> None:
        # lazy: +2.7 s; loaded by the warm-up, not by `import chatbot.app`
        from scipy.sparse import csc_matrix

        self.retriever = retriever
        self.ids = ids
        self.languages = languages
        self.params = params
        self.fingerprint = fingerprint_
        self.payloads = payloads
        self.extras = extras or {}  # other data derived with the index (e.g. dense centroids)
        scores = retriever.scores
        shape = (int(scores["num_docs"]), len(scores["indptr"]) - 1)
        # bm25s stores per-(doc, term) BM25 weights as CSC; keep CSR too for feedback terms.
        self._matrix = csc_matrix((scores["data"], scores["indices"], scores["indptr"]), shape=shape)
        self._rows = None
        self._vocab = retriever.vocab_dict
        self._sorted_vocab: list[str] | None = None  # built on the first `has_prefix`
        self._all_text: str | None = None  # built on the first `mentions`

    @classmethod
    def build(cls, ids: Sequence[str], texts: Sequence[str], languages: Sequence[str],
              params: LexicalParams | None = None, headings: Sequence[str] | None = None,
              payloads: list[dict] | None = None, extras: dict[str, Any] | None = None) -> LexicalIndex:
        """Index `texts` (each analysed in its language); `headings` count `title_weight` times."""
        import bm25s  # lazy: +3.4 s; loaded by the warm-up, not by `import chatbot.app`

        params = params or LexicalParams()
        corpus_tokens: list[list[str]] = []
        for i, (text, lang) in enumerate(zip(texts, languages)):
            tokens = analyse(text, lang, params.stopwords)
            if headings is not None and params.title_weight > 1:
                tokens += analyse(headings[i], lang, params.stopwords) * (params.title_weight - 1)
            corpus_tokens.append(tokens or [""])
        retriever = bm25s.BM25(k1=params.k1, b=params.b, method=params.method)
        if corpus_tokens:
            retriever.index(corpus_tokens, show_progress=False)
        else:
            retriever.index([[""]], show_progress=False)
        used = sorted(set(languages)) or ["en"]
        return cls(retriever, list(ids), used, params, fingerprint(ids), payloads, extras)

    # --- scoring ---------------------------------------------------------------------------
    def _weights(self, tokens: Sequence[str]) -> dict[int, float]:
        weights: dict[int, float] = {}
        for token in tokens:
            tid = self._vocab.get(token)
            if tid is not None and token:
                weights[tid] = weights.get(tid, 0.0) + 1.0
        return weights

    def _score(self, weights: dict[int, float]) -> np.ndarray:
        if not weights or not self.ids:
            return np.zeros(len(self.ids), dtype=np.float32)
        cols = np.fromiter(weights.keys(), dtype=np.int64)
        vals = np.fromiter(weights.values(), dtype=np.float32)
        return np.asarray(self._matrix[:, cols] @ vals).ravel()

    def _expand(self, weights: dict[int, float], top: np.ndarray, doc_weights: np.ndarray) -> dict[int, float]:
        """RM3-style feedback: mix the query with the heaviest terms of the `top` rows."""
        p = self.params
        if not weights or len(top) == 0:
            return weights
        if self._rows is None:
            self._rows = self._matrix.tocsr()
        doc_weights = doc_weights / max(float(doc_weights.sum()), 1e-9)
        rows = self._rows[top]
        row_sums = np.asarray(rows.sum(axis=1)).ravel()
        rows = rows.multiply(1.0 / np.maximum(row_sums, 1e-9)[:, None]).tocsr()
        term_weights = np.asarray(rows.T @ doc_weights).ravel()
        empty = self._vocab.get("")
        if empty is not None and empty < len(term_weights):
            term_weights[empty] = 0.0
        best = np.argsort(-term_weights)[: p.prf_terms]
        best = best[term_weights[best] > 0]
        expansion = {int(t): float(term_weights[t]) for t in best}
        total_q = sum(weights.values())
        total_e = sum(expansion.values()) or 1.0
        mixed = {t: p.prf_weight * w / total_q for t, w in weights.items()}
        for t, w in expansion.items():
            mixed[t] = mixed.get(t, 0.0) + (1 - p.prf_weight) * w / total_e
        return mixed

    def row_of(self, chunk_id: str) -> int | None:
        if not hasattr(self, "_row_index"):
            self._row_index = {id_: i for i, id_ in enumerate(self.ids)}
        return self._row_index.get(chunk_id)

    def has_token(self, token: str) -> bool:
        """Whether some indexed chunk holds `token` (an analysed stem)."""
        tid = self._vocab.get(token)
        indptr = self._matrix.indptr
        return tid is not None and tid + 1 < len(indptr) and int(indptr[tid + 1] - indptr[tid]) > 0

    def mentions(self, pattern: re.Pattern[str]) -> bool:
        """Whether some chunk's title, section or text (lower case, from `payloads`) matches `pattern`: a
        phrase the stems alone cannot tell ("apple watch" where the base says "Apple" and "watch")."""
        if self.payloads is None:
            return True  # no texts kept: nothing to tell
        if self._all_text is None:
            self._all_text = "\n".join(f"{p.get('title', '')}\n{p.get('section', '')}\n{p.get('text', '')}".lower()
                                       for p in self.payloads)
        return pattern.search(self._all_text) is not None

    def has_prefix(self, stem: str) -> bool:
        """Whether some indexed chunk holds a token that starts with `stem` ("postgr" for the
        base's "postgresql"): a short name for a longer one the documents use."""
        if self._sorted_vocab is None:
            self._sorted_vocab = sorted(t for t in self._vocab if self.has_token(t))
        at = bisect.bisect_left(self._sorted_vocab, stem)
        return at < len(self._sorted_vocab) and self._sorted_vocab[at].startswith(stem)

    def idf(self, token: str) -> float:
        """BM25 idf of `token` in this index; a token the index lacks gets the highest idf."""
        n = max(len(self.ids), 1)
        tid = self._vocab.get(token)
        indptr = self._matrix.indptr
        df = int(indptr[tid + 1] - indptr[tid]) if tid is not None and tid + 1 < len(indptr) else 0
        return float(np.log(1 + (n - df + 0.5) / (df + 0.5)))

    def coverage(self, query: str, text: str, language: str) -> float:
        """Share of the query's content words (idf-weighted) that `text` contains, in [0, 1]."""
        stop = frozenset().union(*(stop_words(lang, self.params.stopwords) for lang in self.languages))
        wanted = set(analyse(query, language, self.params.stopwords, stop))
        if not wanted:
            return 0.0
        present = set(analyse(text, language, self.params.stopwords))
        weights = {t: self.idf(t) for t in wanted}
        return sum(w for t, w in weights.items() if t in present) / (sum(weights.values()) or 1.0)

    def scores(self, query: str, feedback_rows: Sequence[int] | None = None) -> np.ndarray:
        """BM25 score of every row for `query`, expanded with feedback terms when enabled:
        from `feedback_rows` if given (e.g. the top of a fused ranking), else from BM25's own
        top `prf_docs` rows."""
        weights = self._weights(analyse_query(query, self.languages, self.params.stopwords))
        scores = self._score(weights)
        if feedback_rows:
            top = np.asarray(list(feedback_rows), dtype=np.int64)
            return self._score(self._expand(weights, top, np.ones(len(top), dtype=np.float32)))
        if self.params.prf_docs > 0:
            top = np.argsort(-scores)[: self.params.prf_docs]
            top = top[scores[top] > 0]
            scores = self._score(self._expand(weights, top, scores[top]))
        return scores

    def search(self, query: str, n: int, feedback_rows: Sequence[int] | None = None) -> list[tuple[int, float]]:
        """Top `n` (row, score) with a positive score, best first."""
        scores = self.scores(query, feedback_rows)
        if n <= 0 or not len(scores):
            return []
        n = min(n, len(scores))
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(i), float(scores[i])) for i in top if scores[i] > 0]

    # --- persistence -----------------------------------------------------------------------
    def save(self, directory: Path) -> None:
        """Write atomically: build in a sibling folder, then swap it in."""
        directory.parent.mkdir(parents=True, exist_ok=True)
        tmp = directory.parent / f".{directory.name}.{uuid.uuid4().hex}"
        self.retriever.save(str(tmp), show_progress=False)
        meta = {"ids": self.ids, "languages": self.languages, "params": asdict(self.params),
                "fingerprint": self.fingerprint, "payloads": self.payloads, "extras": self.extras}
        (tmp / META_FILE).write_text(json.dumps(meta), encoding="utf-8")
        old = directory.parent / f".{directory.name}.old.{uuid.uuid4().hex}"
        if directory.exists():
            directory.rename(old)
        tmp.rename(directory)
        shutil.rmtree(old, ignore_errors=True)

    @classmethod
    def load(cls, directory: Path) -> LexicalIndex | None:
        """The saved index, or None when missing or unreadable (the caller rebuilds it)."""
        import bm25s  # lazy: +3.4 s; loaded by the warm-up, not by `import chatbot.app`

        meta_path = directory / META_FILE
        if not meta_path.is_file():
            return None
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            retriever = bm25s.BM25.load(str(directory), show_progress=False, verbosity=0)
            return cls(retriever, meta["ids"], meta["languages"], LexicalParams(**meta["params"]),
                       meta["fingerprint"], meta.get("payloads"), meta.get("extras"))
        except (OSError, ValueError, KeyError, TypeError):
            return None
