"""Debate: Pros vs Cons, each argument refined by a hostile Persona → Thinking → Critique loop.

Public API: `DebateConfig`, `DebateMemory`, `build_debate_graph`, `mermaid_diagram`,
`run_debate` (streams `debate.events`), `compute_metrics`. No Chainlit here: the UI adapts the
events. Heavy imports (LangGraph) happen on first attribute access.
"""

from __future__ import annotations

from relais.lazy import lazy_attributes

__all__ = [
    "DebateConfig",
    "DebateMemory",
    "RunError",
    "build_debate_graph",
    "compute_metrics",
    "mermaid_diagram",
    "run_debate",
]

_WHERE = {
    "DebateConfig": "debate.config",
    "DebateMemory": "debate.memory",
    "build_debate_graph": "debate.graph",
    "mermaid_diagram": "debate.graph",
    "run_debate": "debate.runner",
    "RunError": "debate.runner",
    "compute_metrics": "debate.metrics",
}


__getattr__ = lazy_attributes(__name__, _WHERE)
