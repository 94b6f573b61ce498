"""The one review a person approves: a diff per unit, gate results, corrections, escalations.

Built from the run state by code (no model), so what the person approves is exactly what
publish will write.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from kb_update.articles import kb_files, read_article
from kb_update.markdown import paragraph_texts
from kb_update.prices import find_money
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


def changed_prices(before: str, after: str) -> list[tuple[str, str]]:
    """(old, new) texts of every amount-with-period the edit changed, paragraph by paragraph."""
    pairs: list[tuple[str, str]] = []
    for old_par, new_par in zip(paragraph_texts(before), paragraph_texts(after)):
        if old_par == new_par:
            continue
        old_money, new_money = find_money(old_par), find_money(new_par)
        if len(old_money) != len(new_money):
            continue
        for a, b in zip(old_money, new_money):
            if a.period and a.text != b.text and (a.text, b.text) not in pairs:
                pairs.append((a.text, b.text))
    return pairs


def cross_check(kb_dir: Path, state: dict[str, Any], final: dict[str, str] | None = None) -> list[str]:
    """Articles checked against each other: a price one article changed that another article
    still states once the run is published. Warnings for the reviewer; they block nothing.

    `final` (path → text publish will write, decisions included) wins over a unit's output and
    over the disk: an article rewritten by a decision in the same run is not reported as stale."""
    disk: dict[str, str] = {}
    for path in kb_files(kb_dir):
        text = read_article(path)
        if text is not None:
            disk[path.relative_to(kb_dir).as_posix()] = text
    after = dict(disk)
    originals: dict[str, str] = {}
    for uid, record in state.get("status", {}).items():
        unit = state["units"][uid]
        originals[unit["path"]] = unit["original"]
        if record["status"] == "done" and record["output"]:
            after[unit["path"]] = record["output"]
    after.update(final or {})
    changes: dict[tuple[str, str], list[str]] = {}
    for rel, text in sorted(after.items()):
        before = originals.get(rel, disk.get(rel))
        if before is None or before == text:
            continue
        for pair in changed_prices(before, text):
            changes.setdefault(pair, []).append(rel)
    warnings = []
    for (old, new), where in changes.items():
        stale = sorted(rel for rel, text in after.items() if old in text and rel not in where)
        if stale:
            warnings.append(f"`{old}` became `{new}` in {', '.join(where)}, but {', '.join(stale)} still "
                            f"state{'s' if len(stale) == 1 else ''} `{old}`.")
    return warnings


def build_review(summary: str, state: dict[str, Any], final: dict[str, str] | None = None) -> dict[str, Any]:
    """Everything the person needs to approve (or not) in one dict (`final`: see `cross_check`)."""
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
    kb_dir = state.get("kb_dir")
    return {
        "job": summary, "units": units, "discarded": discarded, "lessons": state.get("lessons", []),
        "cross_checks": cross_check(Path(kb_dir), state, final) if kb_dir else [],
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
        (f"{s['units']} units · {len(review['publishable'])} ready to publish · {s['corrected']} needed "
         f"corrections · {s['escalated']} escalated · {s['worker_calls']} worker calls ({s['retries']} retries) · "
         f"{s['lessons_approved']} lesson(s) approved"),
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
    decided = [i for i in review.get("items", []) if (i.get("decision") or {}).get("choice") in ("computed", "value")]
    if decided:
        out.append("### Decided by you")
        out += [f"- {i.get('current') or i.get('path')} → {(i['decision'].get('value') or i.get('computed'))} "
                f"({i['relation']})" for i in decided]
    if review.get("kept"):
        out.append("### Kept as they are on your decision (they no longer match the new price)")
        out += [f"- {i.get('current') or i.get('path')} in "
                f"{', '.join(sorted({m['path'] for m in i['mentions']})) or i.get('path')} ({i['relation']})"
                for i in review["kept"]]
    if review.get("broken"):
        out.append("### To check before publishing (a typed value no longer follows the article's wording)")
        out += [f"- {b['path']}: {b['current']} → {b['typed']}, but “{b['source']}” gives {b['expected']}"
                for b in review["broken"]]
    if review.get("cross_checks"):
        out.append("### Across articles (to look at; not blocking)")
        out += [f"- {warning}" for warning in review["cross_checks"]]
    if review["lessons"]:
        out.append("### Lessons")
        out += [f"- {lesson['id']} ({lesson['status']}): {lesson['text']}" for lesson in review["lessons"]]
    if review["discarded"]:
        out.append("### Search hits left unchanged")
        out += [f"- {h['path']} paragraph {h['paragraph'] + 1} `{h['text']}` — {h['reason']}" for h in review["discarded"]]
    return "\n\n".join(out)
