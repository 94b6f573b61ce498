"""Compact markdown of a verdict for the UI's collapsible element under a handoff.

Only ids, key names and the classifier's reasons are rendered (the receipt holds nothing else),
so the element is safe to show and to persist with the thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from handoff_audit.classifier import SAFE_NEXT_MOVE, Verdict, VerdictCode, classify
from handoff_audit.receipt import Receipt

_LABELS = {
    "route": "Route",
    "control": "Control",
    "tool_protocol": "Tool protocol",
    "context": "Context",
    "destination": "Destination",
    "result": "Result",
}
_GOOD = {VerdictCode.HEALTHY, VerdictCode.WAITING_ON_APPROVAL}


def verdict_title(verdict: Verdict, receipt: Receipt | None = None) -> str:
    """One line: icon, verdict and (if given) `sender → recipient`."""
    icon = (
        "✅" if verdict.verdict is VerdictCode.HEALTHY else "⏸️" if verdict.verdict in _GOOD else "⚠️"
    )
    route = f" · {receipt.sender} → {receipt.recipient}" if receipt is not None else ""
    return f"{icon} Handoff {verdict.verdict.value}{route}"


def verdict_line(verdict: Verdict, receipt: Receipt) -> str:
    """One short line per handoff: icon, verdict and destination (`✅ HEALTHY → external_agent`)."""
    icon = verdict_title(verdict).split(" ", 1)[0]
    return f"{icon} {verdict.verdict.value} → {receipt.recipient or '?'}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(verdict: Verdict, receipt: Receipt | None = None) -> str:
    """Title, the six boundaries as a table (in precedence order) and the safe next move."""
    lines = [f"**{verdict_title(verdict, receipt)}**", ""]
    if receipt is not None and receipt.route_contract:
        lines += [f"`{receipt.route_contract}` · `{receipt.operation_id}`", ""]
    lines += ["| Boundary | | Evidence |", "|---|---|---|"]
    for boundary in verdict.boundaries:
        mark = "✔" if boundary.passed else "✘"
        lines.append(
            f"| {_LABELS.get(boundary.name, boundary.name)} | {mark} | {_cell(boundary.reason)} |"
        )
    lines += ["", f"_{SAFE_NEXT_MOVE[verdict.verdict]}_"]
    return "\n".join(lines)


def render_receipts(receipts: Iterable[Receipt], now: datetime | None = None) -> str:
    """Several receipts (e.g. one turn's forward, route and wait) as consecutive sections."""
    return "\n\n---\n\n".join(render_markdown(classify(r, now), r) for r in receipts)
