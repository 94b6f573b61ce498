"""Warm start: load what the first question would otherwise wait for, before saying "ready".

The first help-center question after start used to take ~26 s: the sentence encoder, Chroma,
the BM25 index, the calibration vectors and the first forward pass were all loaded lazily.
`warm_up` does that work once (one search per UI language and one composed answer), so the
first person's answer costs what later ones cost.
"""

from __future__ import annotations

import time
from typing import Any

from relais.settings import Settings, get_settings

_PROBES = ("How much does it cost?", "Combien ça coûte ?")


def warm_up(settings: Settings | None = None) -> float:
    """Load the knowledge base and run the answer path once; returns the seconds it took."""
    from knowledge.extractive import extractive_answer
    from knowledge.retrieval import get_knowledge_base

    started = time.perf_counter()
    kb: Any = get_knowledge_base(settings or get_settings())
    if not kb.is_empty():
        kb.lexical()
        for probe in _PROBES:
            hits = kb.search(probe)
            extractive_answer(probe, hits or kb.search(probe, min_score=0.0, top_k=2), kb.embedder, kb=kb)
    return time.perf_counter() - started
