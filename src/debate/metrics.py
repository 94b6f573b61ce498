"""Run metrics, computed from the checkpointed state (so a resumed run reports the whole run).

- loop-lock rate: turns that hit the refinement cap / turns played;
- mean refinements per approved argument: critique rejections before approval (0 = approved
  at the first pass), averaged over approved arguments; mean passes = that + 1;
- persona changes per team: Persona decisions that replaced an existing persona.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def compute_metrics(state: Mapping[str, Any]) -> dict[str, Any]:
    turns = list(state.get("turns") or [])
    approved = [t for t in turns if t["outcome"] == "approved"]
    locks = list(state.get("loop_locks") or [])
    decisions = list(state.get("persona_decisions") or [])
    rounds = int(state.get("rounds") or 0)
    played_rounds = {t["round"] for t in turns if t["team"] == "cons"}
    mean_passes = sum(t["attempts"] for t in approved) / len(approved) if approved else None
    return {
        "rounds_planned": rounds,
        "rounds_completed": len(played_rounds),
        "turns": len(turns),
        "arguments_approved": len(approved),
        "loop_locks": len(locks),
        "loop_lock_rate": round(len(locks) / len(turns), 4) if turns else 0.0,
        "mean_refinements_per_approved": None if mean_passes is None else round(mean_passes - 1, 4),
        "mean_passes_per_approved": None if mean_passes is None else round(mean_passes, 4),
        "persona_changes": {
            team: sum(1 for d in decisions if d["team"] == team and d["changed"])
            for team in ("pros", "cons")
        },
        "llm_calls": int(state.get("llm_calls") or 0),
        "retries": int(state.get("retries") or 0),
        "loop_lock_events": locks,
    }


def format_metrics(metrics: Mapping[str, Any]) -> str:
    """A markdown table, the same in the CLI, the UI and `transcript.md`."""

    def show(value: Any) -> str:
        if value is None:
            return "n/a"
        if isinstance(value, float):
            return f"{value:.2f}"
        return str(value)

    changes = metrics.get("persona_changes", {})
    rows = [
        ("Rounds completed", f"{metrics['rounds_completed']} / {metrics['rounds_planned']}"),
        ("Arguments approved", f"{metrics['arguments_approved']} / {metrics['turns']} turns"),
        (
            "Loop-lock rate",
            f"{show(metrics['loop_lock_rate'])} ({metrics['loop_locks']} loop-lock(s))",
        ),
        ("Mean refinements per approved argument", show(metrics["mean_refinements_per_approved"])),
        ("Persona changes (Pros / Cons)", f"{changes.get('pros', 0)} / {changes.get('cons', 0)}"),
        ("LLM calls (retries)", f"{metrics['llm_calls']} ({metrics['retries']})"),
    ]
    lines = ["| Metric | Value |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows]
    for lock in metrics.get("loop_lock_events", []):
        lines.append("")
        lines.append(
            f"- Loop-lock: {lock['team']} in round {lock['round']} after {lock['attempts']} passes "
            f"(policy: {lock['policy']}); last feedback: {lock['last_feedback']}"
        )
    return "\n".join(lines)
