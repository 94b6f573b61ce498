"""The offline answer engine: quote the retrieved sentences that best answer the question.

With no generative model configured, Relais still answers usefully: it ranks every sentence of
the retrieved chunks by embedding similarity to the question (each sentence read with its
title/section, so "It costs $10/month" under "Base plan" is understood), adds a little lexical
overlap and retrieval rank, keeps the best few (non-redundant) and returns them in document
order with numbered sources. When nothing clears the bar it says so, in the question's language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from relais.embeddings import Embedder, get_embedder
from relais.settings import get_settings

from knowledge.chunking import split_sentences
from knowledge.embedding_cache import embed_texts
from knowledge.language import detect_language
from knowledge.lexical import analyse_query
from knowledge.retrieval import Hit

NOT_FOUND = {
    "en": "I couldn't find this in the knowledge base.",
    "fr": "Je n'ai pas trouvé cette information dans la base de connaissances.",
}
MIN_SENTENCE_SIMILARITY = 0.30  # MiniLM cosine: below this a sentence does not answer
KEEP_RATIO = 0.80  # keep sentences scoring at least this share of the best one
_MARKUP = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|#+|>)\s+|\*\*|__|`|\|")


@dataclass
class ExtractiveAnswer:
    text: str
    sources: list[Hit] = field(default_factory=list)
    found: bool = False


@dataclass
class _Candidate:
    sentence: str
    hit: Hit
    rank: int
    position: int
    score: float = 0.0


def _clean(sentence: str) -> str:
    cleaned = _MARKUP.sub(" ", sentence)
    return re.sub(r"\s+", " ", cleaned).strip(" |")


def not_found_message(question: str) -> str:
    return NOT_FOUND[detect_language(question)]


def _candidates(hits: list[Hit]) -> list[_Candidate]:
    seen: set[str] = set()
    out: list[_Candidate] = []
    for rank, hit in enumerate(hits):
        for position, raw in enumerate(split_sentences(hit.text)):
            sentence = _clean(raw)
            key = sentence.lower()
            if len(sentence) < 12 or len(sentence.split()) < 3 or key in seen:
                continue
            seen.add(key)
            out.append(_Candidate(sentence, hit, rank, position))
    return out


def extractive_answer(question: str, hits: list[Hit], embedder: Embedder | None = None,
                      max_sentences: int = 3, cache_dir: Path | None = None, kb: object = None) -> ExtractiveAnswer:
    """The best `max_sentences` sentences of `hits` for `question`, or an honest not-found.

    Sentence vectors go through the embedding cache (default `<data dir>/embeddings`): the
    same chunks come back across questions, so only the question is encoded most of the time.
    """
    question = (question or "").strip()
    candidates = _candidates(hits) if question else []
    if not candidates:
        return ExtractiveAnswer(not_found_message(question), [], False)
    embedder = embedder or get_embedder()
    if cache_dir is None:
        cache_dir = get_settings().data_dir / "embeddings"
    qvec = embedder.embed_query(question)
    svecs = embed_texts(
        embedder, [f"{c.hit.heading}: {c.sentence}" if c.hit.heading else c.sentence for c in candidates],
        cache_dir,
    )
    similarity = svecs @ qvec
    languages = sorted({"en", "fr"})
    q_terms = set(analyse_query(question, languages))
    for cand, sim in zip(candidates, similarity):
        terms = set(analyse_query(f"{cand.hit.heading} {cand.sentence}", languages))
        overlap = len(q_terms & terms) / len(q_terms) if q_terms else 0.0
        cand.score = float(sim) + 0.15 * overlap + 0.05 / (1 + cand.rank)
    order = np.argsort([-c.score for c in candidates])
    best = candidates[order[0]]
    if float(similarity[order[0]]) < MIN_SENTENCE_SIMILARITY and best.score < MIN_SENTENCE_SIMILARITY + 0.1:
        return ExtractiveAnswer(not_found_message(question), [], False)

    chosen: list[int] = []
    for i in order:
        if len(chosen) >= max_sentences or candidates[i].score < KEEP_RATIO * best.score:
            break
        if any(float(svecs[i] @ svecs[j]) > 0.9 for j in chosen):
            continue  # near-duplicate of a sentence already kept
        chosen.append(int(i))

    # document order: sources in retrieval order, then chunk, then sentence position
    source_rank: dict[str, int] = {}
    for i in sorted(chosen, key=lambda i: candidates[i].rank):
        source_rank.setdefault(candidates[i].hit.source, len(source_rank))
    chosen.sort(key=lambda i: (source_rank[candidates[i].hit.source], candidates[i].hit.chunk_index,
                               candidates[i].position))
    sources: list[Hit] = []  # one per file, numbered as cited
    parts = []
    for i in chosen:
        hit = candidates[i].hit
        number = next((n for n, s in enumerate(sources, 1) if s.source == hit.source), 0)
        if not number:
            sources.append(hit)
            number = len(sources)
        parts.append(f"{candidates[i].sentence} [{number}]")
    return ExtractiveAnswer(" ".join(parts), sources, True)
