"""The one review a person approves: a diff per unit, gate results, corrections, escalations.

Built from the run state by code (no model), so what the person approves is exactly what
publish will write.
"""

from __future__ import annotations

import difflib
from typing import Any

from kb_update.types import Attempt


def unit_diff(path: str, before: str, after: str) -> str:
    """Unified diff of one article (paragraphs are long lines, so no context lines)."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True),
        fromfile=f"a/{path}", tofile=f"b/{path}", n=0,
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _history(attempts: list[Attempt]) -> list[dict[str, Any]]:
    return [{"attempt": a["attempt"], "failures": a["failures"], "error": a["error"],
             "lessons": a["lessons"]} for a in attempts]


def build_review(summary: str, state: dict[str, Any]) -> dict[str, Any]:
    """Everything the person needs to approve (or not) in one dict."""
    units = []
    for uid in state.get("order", []):
        unit, record = state["units"][uid], state["status"][uid]
        last = record["history"][-1] if record["history"] else None
        output = record["output"]
        changed = output is not None and output != unit["original"]
        units.append({
            "id": uid, "path": unit["path"], "title": unit["title"], "brief": unit["brief"],
            "status": record["status"], "attempts": record["attempts"],
            "corrected": record["status"] == "done" and record["attempts"] > 1,
            "changed": changed, "diff": unit_diff(unit["path"], unit["original"], output) if changed else "",
            "gates": last["gates"] if last else {}, "skipped": last["skipped"] if last else [],
            "escalation": record["escalation"], "history": _history(record["history"]),
        })
    by_id = {hit["id"]: hit for hit in state.get("hits", [])}
    discarded = [{**by_id[d["hit_id"]], "reason": d["reason"]}
                 for d in state.get("decisions", []) if not d["keep"] and d["hit_id"] in by_id]
    calls = len(state.get("attempts", []))
    attempted = sum(1 for u in units if u["attempts"])
    stats = {
        "hits": len(by_id), "discarded": len(discarded), "units": len(units),
        "done": sum(1 for u in units if u["status"] == "done"),
        "escalated": sum(1 for u in units if u["status"] == "escalated"),
        "corrected": sum(1 for u in units if u["corrected"]),
        "worker_calls": calls, "retries": calls - attempted,
        "lessons_approved": sum(1 for lesson in state.get("lessons", []) if lesson["status"] == "approved"),
    }
    return {
        "job": summary, "units": units, "discarded": discarded, "lessons": state.get("lessons", []),
        "publishable": [u["path"] for u in units if u["status"] == "done" and u["changed"]], "stats": stats,
    }


def _fence(text: str) -> str:
    fence = "~~~~" if "```" in text else "```"
    return f"{fence}diff\n{text}{fence}"


def render_markdown(review: dict[str, Any]) -> str:
    """The review as markdown (chat UI, terminal, logs)."""
    s = review["stats"]
    out = [
        f"## Review — {review['job']}",
        f"{s['units']} units · {len(review['publishable'])} ready to publish · {s['corrected']} needed "
        f"corrections · {s['escalated']} escalated · {s['worker_calls']} worker calls ({s['retries']} retries) · "
        f"{s['lessons_approved']} lesson(s) approved",
    ]
    for unit in review["units"]:
        if unit["status"] == "done":
            head = "✅ passed" + (f" after {unit['attempts']} attempts (corrected)" if unit["corrected"] else "")
        else:
            head = f"⚠️ escalated — {unit['escalation']}"
        out.append(f"### {unit['path']} — {head}")
        gates = ", ".join(f"{name} {'✓' if not msgs else '✗'}" for name, msgs in unit["gates"].items())
        if unit["skipped"]:
            gates += ", " + ", ".join(f"{name} (skipped: code gates failed)" for name in unit["skipped"])
        out.append(f"Gates: {gates or 'not run'}")
        if unit["status"] != "done" or unit["corrected"]:
            for attempt in unit["history"]:
                shown = "; ".join(attempt["failures"]) or "passed"
                out.append(f"- attempt {attempt['attempt']}: {shown}")
        if unit["diff"]:
            out.append(_fence(unit["diff"]))
    if review["lessons"]:
        out.append("### Lessons")
        out += [f"- {lesson['id']} ({lesson['status']}): {lesson['text']}" for lesson in review["lessons"]]
    if review["discarded"]:
        out.append("### Search hits left unchanged")
        out += [f"- {h['path']} paragraph {h['paragraph'] + 1} `{h['text']}` — {h['reason']}" for h in review["discarded"]]
    return "\n\n".join(out)
