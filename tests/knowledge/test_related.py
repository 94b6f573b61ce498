"""Related articles: uncited documents retrieved close behind the best hit, one per document."""

from __future__ import annotations

from knowledge.related import related_articles
from knowledge.retrieval import Hit


def hit(source: str, score: float, index: int = 0) -> Hit:
    return Hit("text", source, source.upper(), "", index, score)


def test_close_uncited_documents_follow_the_cited_ones() -> None:
    hits = [hit("a.md", 1.0), hit("a.md", 0.95, 1), hit("b.md", 0.9), hit("c.md", 0.85), hit("d.md", 0.5)]
    related = related_articles(hits, [hits[0]])
    assert [h.source for h in related] == ["b.md", "c.md"]  # d.md is far behind; a.md is cited


def test_nothing_related_when_all_are_cited_or_none_retrieved() -> None:
    hits = [hit("a.md", 1.0), hit("b.md", 0.9)]
    assert related_articles(hits, hits) == []
    assert related_articles([], []) == []
