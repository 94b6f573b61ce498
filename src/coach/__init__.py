"""The LangGraph fitness & nutrition coach: two advisors, a deterministic router, a human node.

Public surface (imported lazily: `relais --help` imports `coach.cli`, hence this package, and LangGraph
would add about 10 s to it on a loaded 2-core machine; `tests/coach/test_cli.py` guards it):
`build_coach_graph`, `CoachRunner`, `route`, `create_app`, `open_checkpointer`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relais.lazy import lazy_attributes

__all__ = ["CoachRunner", "build_coach_graph", "create_app", "open_checkpointer", "route"]

_WHERE = {
    "build_coach_graph": "coach.graph",
    "CoachRunner": "coach.runner",
    "route": "coach.router",
    "create_app": "coach.service",
    "open_checkpointer": "coach.checkpoint",
}

if TYPE_CHECKING:  # pragma: no cover
    from coach.checkpoint import open_checkpointer
    from coach.graph import build_coach_graph
    from coach.router import route
    from coach.runner import CoachRunner
    from coach.service import create_app


__getattr__ = lazy_attributes(__name__, _WHERE)
