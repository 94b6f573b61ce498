"""The passages the answer composer reads beyond the retrieved hits, and why each is worth reading.

Retrieval ranks chunks as a whole; the composer reads their units one by one. A unit that answers
may sit in a chunk retrieval did not return: next to the top hit (the chunker split the answer from
it), elsewhere in the best articles (the row of the asked type), in an article the best unit links
to, or in a chunk ranked right behind the hits (a long list of options reads far from any one
question as a whole). These passages never decide whether the base answers at all: the composer's
relevance bar reads only what retrieval returned.
"""

from __future__ import annotations

from typing import Any

from knowledge.passage_units import Unit
from knowledge.pointers import MAX_POINTERS, resolve_target
from knowledge.retrieval import Hit

TYPED_ARTICLES = 2  # articles searched whole for units of the asked type


def neighbours(hits: list[Hit], kb: Any) -> list[tuple[Hit, float]]:
    """The chunks right before and after the top hit in its article, ranked after every hit:
    the chunker may have split the sentence that answers from the passage retrieval found."""
    if not hits:
        return []
    return around(hits[0], float(len(hits)), kb, {(h.source, h.chunk_index) for h in hits}, offset=0.0)


def around(hit: Hit, rank: float, kb: Any, have: set[tuple[str, int]], *,
           offset: float = 0.5) -> list[tuple[Hit, float]]:
    """The chunks right before and after the passage of the best unit, wherever it came from (a
    runner-up, a linked article): "…this will result in the following:" is the best unit, and
    what follows it ("Files will not be deleted") may sit in the next chunk."""
    if kb is None or not hasattr(kb, "source_chunks"):
        return []
    return [(chunk, rank + offset) for chunk in kb.source_chunks(hit.source)
            if abs(chunk.chunk_index - hit.chunk_index) == 1 and (chunk.source, chunk.chunk_index) not in have]


def whole_articles(hits: list[Hit], kb: Any, have: set[tuple[str, int]]) -> list[tuple[Hit, float]]:
    """Every other chunk of the first `TYPED_ARTICLES` retrieved articles (searched for units of
    the asked answer type: the row with the weekday hours may sit in a chunk retrieval missed)."""
    if kb is None or not hasattr(kb, "source_chunks"):
        return []
    sources: dict[str, float] = {}
    for rank, h in enumerate(hits):
        sources.setdefault(h.source, float(rank))
    out: list[tuple[Hit, float]] = []
    for source, rank in list(sources.items())[:TYPED_ARTICLES]:
        out += [(chunk, rank + 0.5) for chunk in kb.source_chunks(source)
                if (chunk.source, chunk.chunk_index) not in have]
    return out


def linked_articles(unit: Unit, hit: Hit, rank: float, kb: Any,
                    have: set[tuple[str, int]]) -> list[tuple[Hit, float]]:
    """The chunks of the articles `unit` (the best one, from `hit`) links to or names by title
    ("you can freeze your membership for up to three months"): the unit says where the details
    are, and the linked article may state the asked fact ("You are not charged")."""
    if kb is None or not hasattr(kb, "source_chunks"):
        return []
    sources = [resolve_target(target, label, hit, kb) for label, target in unit.links]
    if hasattr(kb, "source_titles"):
        text = f" {' '.join(unit.text.lower().split())} "
        sources += [source for title, source in kb.source_titles().items()
                    if len(title.split()) >= 2 and f" {title} " in text]
    out: list[tuple[Hit, float]] = []
    for source in list(dict.fromkeys(s for s in sources if s and s != hit.source))[:MAX_POINTERS]:
        chunks = kb.source_chunks(source)
        out += [(chunk, rank + 0.5) for chunk in chunks if (chunk.source, chunk.chunk_index) not in have]
        have.update((chunk.source, chunk.chunk_index) for chunk in chunks)
    return out


def runners_up(question: str, hits: list[Hit], kb: Any, have: set[tuple[str, int]]) -> list[tuple[Hit, float]]:
    """The chunks retrieval ranked right behind `hits` for `question` (`KnowledgeBase.runners_up`),
    ranked after every hit: "--port: Specifies a different port" sits in a long list of options
    whose chunk as a whole reads too far from "how do I serve the app on another port?"."""
    if not hits or kb is None or not hasattr(kb, "runners_up"):
        return []
    return [(chunk, float(len(hits) + 1 + i)) for i, chunk in enumerate(kb.runners_up(question))
            if (chunk.source, chunk.chunk_index) not in have]
