"""kb_update: a work graph that updates knowledge-base articles safely.

Split (code search, then a model or rules, coverage-checked) → parallel workers (LangGraph
`Send`) → code gates and a judge → correction edge (failed units only, with their evidence)
and learning edge (approved lessons join every brief) → one review, one approval → publish
(write + incremental re-ingest). The concrete job shipped here is a price change.

Names are imported lazily so `relais --help` (which imports `kb_update.cli`) stays fast.
"""

from __future__ import annotations

from relais.lazy import lazy_attributes

_EXPORTS = {
    "components_for": "kb_update.factory",
    "MAX_ATTEMPTS": "kb_update.graph", "Components": "kb_update.graph", "EngineConfig": "kb_update.graph",
    "build_graph": "kb_update.graph",
    "PriceChange": "kb_update.price_job", "PriceChangeJob": "kb_update.price_job",
    "ChangeRequest": "kb_update.request", "parse_change_request": "kb_update.request",
    "ApprovalNeeded": "kb_update.runner", "Finished": "kb_update.runner", "KbUpdateRun": "kb_update.runner",
    "RoundDone": "kb_update.runner", "RunawayRunError": "kb_update.runner", "SplitDone": "kb_update.runner",
    "UnitChecked": "kb_update.runner", "UnitStarted": "kb_update.runner", "checkpoint_path": "kb_update.runner",
    "drive": "kb_update.runner", "sqlite_checkpointer": "kb_update.runner",
    "SplitCoverageError": "kb_update.splitter", "check_coverage": "kb_update.splitter", "split": "kb_update.splitter",
}
__all__ = list(_EXPORTS)


__getattr__ = lazy_attributes(__name__, _EXPORTS)
