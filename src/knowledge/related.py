"""Related articles: a person's second chance when the answer quotes one article.

Retrieval often ranks the right article just behind the one the answer quotes. The other
documents retrieved close behind the best hit (fused score ≥ `RELATED_RATIO` × the best,
already past the relevance bar) are offered as "see also" after the cited sources, so the right
article is one click away without padding the answer itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from knowledge.retrieval import Hit

RELATED_RATIO = 0.80
MAX_RELATED = 3


def related_articles(hits: list[Hit], cited: Iterable[Hit], limit: int = MAX_RELATED,
                     ratio: float = RELATED_RATIO) -> list[Hit]:
    """Uncited documents among `hits` scoring within `ratio` of the best hit, best first."""
    if not hits:
        return []
    best = max(h.score for h in hits)
    seen = {h.source for h in cited}
    out: list[Hit] = []
    for hit in sorted(hits, key=lambda h: h.score, reverse=True):
        if hit.source in seen or hit.score < ratio * best:
            continue
        seen.add(hit.source)
        out.append(hit)
    return out[:limit]
