"""Warm start: load what the first question would otherwise wait for, before saying "ready".

The first help-center question after start used to take ~26 s: the sentence encoder, Chroma,
the BM25 index, the calibration vectors and the first forward pass were all loaded lazily.
`warm_up` does that work once (one search per UI language and one composed answer), so the
first person's answer costs what later ones cost.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from knowledge.extractive import extractive_answer
from knowledge.retrieval import get_knowledge_base
from knowledge.settings import KnowledgeSettings, knowledge_settings

_PROBES = ("How much does it cost?", "Combien ça coûte ?")


STEPS = 2 + len(_PROBES)  # what `on_step` is called for: the encoder, BM25, one answer per probe


def warm_up(settings: KnowledgeSettings | None = None, on_step: Callable[[str], None] | None = None) -> float:
    """Load the knowledge base and run the answer path once; returns the seconds it took.

    `on_step(description)` is called as each of the `STEPS` steps starts (the app's readiness
    route reports it, and `make run` shows it while it waits)."""
    step = on_step or (lambda _description: None)
    started = time.perf_counter()
    step("loading the sentence encoder and the vector store")
    kb: Any = get_knowledge_base(settings or knowledge_settings())
    if not kb.is_empty():
        step("loading the BM25 index")
        kb.lexical()
        for probe in _PROBES:
            step(f"a first answer ({probe})")
            hits = kb.search(probe)
            extractive_answer(probe, hits or kb.search(probe, min_score=0.0, top_k=2), kb.embedder, kb=kb)
    return time.perf_counter() - started
