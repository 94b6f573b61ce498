"""The readable transcript (`transcript.md`): approved arguments, forfeits, metrics."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debate.memory import PublishedArgument
from debate.metrics import format_metrics
from debate.schemas import team_label


def render_transcript(
    motion: str,
    arguments: list[PublishedArgument],
    state: Mapping[str, Any],
    metrics: Mapping[str, Any],
    status: str,
) -> str:
    published = {(a.round, a.team): a for a in arguments}
    lines = [f"# Debate: {motion}", "", f"Status: {status}", ""]
    for turn in state.get("turns") or []:
        key = (turn["round"], turn["team"])
        header = f"## Round {turn['round']} · {team_label(turn['team'])}"
        if turn["outcome"] == "approved" and key in published:
            arg = published[key]
            lines += [header, "", arg.argument, ""]
            if arg.evidence:
                lines += ["Evidence:", *[f"- {e}" for e in arg.evidence], ""]
        else:
            lines += [
                header,
                "",
                f"_Forfeited: loop-lock after {turn['attempts']} refinement passes._",
                "",
            ]
    lines += ["## Metrics", "", format_metrics(metrics), ""]
    return "\n".join(lines)
