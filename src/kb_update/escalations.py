"""What the update leaves for a person, decided one item at a time before the final approval.

After the units are done, the job scans the whole knowledge base as it would be after the
run (`Job.derived_amounts`). Every amount that still follows the old value becomes an item;
mentions of the same amount with the same recomputed value are one item wherever they are
(the Family row of the English and the French table, the family article): one decision keeps
the knowledge base consistent across articles and languages. An escalated unit the code
could not describe as amounts becomes an article item (publish the proposed text or not).

Choices: use the computed value, keep the current text, or type a value. Kept items stay
listed as open contradictions in the review and the final report: nothing is published that
leaves the knowledge base contradicting itself without saying so.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Protocol

from kb_update.articles import kb_files, read_article, sha256_text
from kb_update.crosscheck import ratio_sentences
from kb_update.markdown import blocks, replace_blocks
from kb_update.prices import PERIOD_MONTHS, find_money, rewrite_mention_text

CHOICES = ("computed", "keep", "value")
_NUMBER = re.compile(r"\d{1,3}(?:[ ,]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?")


class DerivedAmount(Protocol):
    path: str
    paragraph: int
    start: int
    text: str
    suggestion: str
    kind: str
    old_amount: Decimal
    new_amount: Decimal
    period: str | None
    relation: str
    source: str
    factor: Decimal | None
    other: Decimal | None


def disk_texts(kb_dir: Path) -> dict[str, str]:
    texts = {}
    for path in kb_files(kb_dir):
        text = read_article(path)
        if text is not None:
            texts[path.relative_to(kb_dir).as_posix()] = text
    return texts


def _code_gates_passed(record: dict[str, Any]) -> bool:
    """The escalated draft passed every code check; only the judge (a person's call) objected."""
    last = record["history"][-1] if record["history"] else None
    if last is None or last["output"] is None or last["error"]:
        return False
    failing = [name for name, messages in last["gates"].items() if messages]
    return all(name.startswith("judge") for name in failing)


def bases(kb_dir: Path, state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each article as the run leaves it (unit output, escalated draft, or disk) + its disk sha."""
    texts = disk_texts(kb_dir)
    out: dict[str, dict[str, Any]] = {
        rel: {"text": text, "sha256": sha256_text(text), "from": "disk", "unit": None, "escalated": False}
        for rel, text in texts.items()
    }
    for uid, record in state.get("status", {}).items():
        unit = state["units"][uid]
        entry = {"text": unit["original"], "sha256": unit["sha256"], "from": "disk", "unit": uid,
                 "escalated": record["status"] == "escalated"}
        if record["status"] == "done" and record["output"] is not None:
            entry.update(text=record["output"], **{"from": "unit"})
        elif record["status"] == "escalated" and _code_gates_passed(record):
            entry.update(text=record["output"], **{"from": "draft"})
        out[unit["path"]] = entry
    return out


def collect_items(derived: list[DerivedAmount], state: dict[str, Any],
                  base: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Group the derived amounts into decisions; add an article item per escalated unit left bare."""
    groups: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for d in derived:
        key = (d.kind, str(d.old_amount.normalize()), str(d.new_amount.normalize()), d.period or "")
        item = groups.get(key)
        if item is None:
            item = groups[key] = {
                "id": "", "kind": d.kind, "current": d.text, "computed": d.suggestion,
                "old_amount": str(d.old_amount), "new_amount": str(d.new_amount), "period": d.period,
                "relation": d.relation, "source": d.source, "mentions": [], "decision": None,
                "factor": None if d.factor is None else str(d.factor.quantize(Decimal("0.0001")).normalize()),
                "other": None if d.other is None else str(d.other),
            }
        item["mentions"].append({"path": d.path, "paragraph": d.paragraph, "start": d.start, "text": d.text,
                                 "suggestion": d.suggestion})
    items = list(groups.values())
    covered = {m["path"] for item in items for m in item["mentions"]}
    for uid in state.get("order", []):
        record, unit = state["status"][uid], state["units"][uid]
        if record["status"] == "escalated" and unit["path"] not in covered:
            items.append({
                "id": "", "kind": "article", "path": unit["path"], "current": None,
                "computed": "draft" if base.get(unit["path"], {}).get("from") == "draft" else None,
                "relation": record["escalation"] or "", "source": "", "mentions": [], "decision": None,
            })
    order = {"old-price": 0, "period-total": 1, "difference": 2, "share-of-difference": 3, "ratio": 4, "article": 5}
    items.sort(key=lambda i: (order.get(i["kind"], 9), i["mentions"][0]["path"] if i["mentions"] else i["path"]))
    for number, item in enumerate(items, start=1):
        item["id"] = f"d{number}"
    return items


def parse_amount(text: str) -> Decimal | None:
    """The number a person typed ("36", "$36/month", "36,50 $") or None."""
    match = _NUMBER.search(text or "")
    if not match:
        return None
    raw = match.group(0).replace(" ", "")
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?", raw):
        raw = raw.replace(",", "")
    try:
        return Decimal(raw.replace(",", "."))
    except InvalidOperation:
        return None


def normalize_decision(answer: Any, item: dict[str, Any]) -> dict[str, Any] | None:
    """A person's answer to one item → {"choice", "value"?, "all"?}; None when it is not an answer."""
    if isinstance(answer, dict):
        choice = str(answer.get("choice", "")).lower()
        every = bool(answer.get("all"))
        if choice == "value":
            amount = parse_amount(str(answer.get("value", "")))
            if amount is None or item["kind"] == "article":
                return None
            return {"choice": "value", "value": str(amount), "all": False}
        if choice in ("computed", "keep"):
            if choice == "computed" and item.get("computed") is None:
                return None
            return {"choice": choice, "all": every}
        return None
    if answer is True:
        return {"choice": "computed" if item.get("computed") else "keep", "all": False}
    if answer is False:
        return {"choice": "keep", "all": False}
    if isinstance(answer, str):
        word = answer.strip().lower()
        if word in CHOICES[:2]:
            return normalize_decision({"choice": word}, item)
        amount = parse_amount(word)
        if amount is not None:
            return normalize_decision({"choice": "value", "value": str(amount)}, item)
    return None


def _months(period: str | None) -> int | None:
    return PERIOD_MONTHS.get(period or "")


def same_quantity(a: dict[str, Any], b: dict[str, Any]) -> Decimal | None:
    """How many `a` periods `b` is, when `b` is the same amount as `a` over another period
    (the Family plan's $360/year beside its $30/month): both before and after the change, so
    the two were computed from one relation. None when `b` does not follow `a`."""
    if "article" in (a["kind"], b["kind"]):
        return None
    months_a, months_b = _months(a.get("period")), _months(b.get("period"))
    if not months_a or not months_b or months_a == months_b:
        return None
    span = Decimal(months_b) / Decimal(months_a)
    try:
        old_a, old_b = Decimal(a["old_amount"]), Decimal(b["old_amount"])
        new_a, new_b = Decimal(a["new_amount"]), Decimal(b["new_amount"])
    except (InvalidOperation, KeyError, TypeError):
        return None
    near = Decimal("0.005")
    return span if abs(old_a * span - old_b) < near and abs(new_a * span - new_b) < near else None


def follow_typed_value(items: list[dict[str, Any]], index: int) -> None:
    """The open items that are the decided item's amount over another period now follow the
    value the person typed ($35/month typed → $420/year proposed, not $36 × 12), in place."""
    decided = items[index]
    value = Decimal(decided["decision"]["value"])
    for item in items:
        span = same_quantity(decided, item) if item is not decided and item["decision"] is None else None
        if span is None:
            continue
        target = (value * span).quantize(Decimal("0.01"))
        item["new_amount"] = str(target)
        for mention in item["mentions"]:
            found = find_money(mention["text"])
            if found:
                mention["suggestion"] = rewrite_mention_text(found[0], target)
        found = find_money(item["current"] or "")
        if found:
            item["computed"] = rewrite_mention_text(found[0], target)
        item["follows"] = {"current": decided["current"], "value": _typed_text(decided)}


def _typed_text(item: dict[str, Any]) -> str:
    found = find_money(item["current"] or "")
    value = Decimal(item["decision"]["value"])
    return rewrite_mention_text(found[0], value) if found else str(value)


def broken_relations(items: list[dict[str, Any]], texts: dict[str, str]) -> list[dict[str, Any]]:
    """Typed values that no longer follow the ratio an article states ("three times the Base
    plan"): that sentence, as it will be published (`texts`: path → final text), then contradicts
    the amount beside it, so the review says where."""
    out = []
    for item in items:
        decision = item.get("decision") or {}
        if decision.get("choice") != "value" or item["kind"] != "ratio" or not item.get("factor"):
            continue
        if abs(Decimal(decision["value"]) - Decimal(item["new_amount"])) < Decimal("0.005"):
            continue
        for path, sentence in ratio_sentences(texts, Decimal(item["factor"])):
            out.append({"current": item["current"], "typed": _typed_text(item), "expected": item["computed"],
                        "path": path, "source": sentence})
    return out


def decide(items: list[dict[str, Any]], index: int, decision: dict[str, Any]) -> list[dict[str, Any]]:
    """A copy of `items` with this decision recorded (and "for all remaining" applied); a typed
    value carries over to the same amount stated for another period (`follow_typed_value`)."""
    out = [{**item, "mentions": [dict(m) for m in item.get("mentions", [])]} for item in items]
    out[index]["decision"] = {k: v for k, v in decision.items() if k != "all"}
    if decision["choice"] == "value":
        follow_typed_value(out, index)
    if decision.get("all"):
        for item in out[index + 1:]:
            if item["decision"] is None:
                choice = decision["choice"] if decision["choice"] != "computed" or item.get("computed") else "keep"
                item["decision"] = {"choice": choice}
    return out


def next_open(items: list[dict[str, Any]]) -> int | None:
    return next((i for i, item in enumerate(items) if item["decision"] is None), None)


def _value_of(mention: dict[str, Any], decision: dict[str, Any]) -> str | None:
    if decision["choice"] == "computed":
        return mention["suggestion"]
    if decision["choice"] == "value":
        found = find_money(mention["text"])
        return rewrite_mention_text(found[0], Decimal(decision["value"])) if found else None
    return None


def final_texts(base: dict[str, dict[str, Any]], items: list[dict[str, Any]]) -> dict[str, str]:
    """Each touched article's text with the decided values written in (offsets of the base)."""
    edits: dict[str, dict[int, list[tuple[int, str, str]]]] = {}
    for item in items:
        decision = item.get("decision")
        if not decision:
            continue
        for mention in item["mentions"]:
            value = _value_of(mention, decision)
            if value is not None and value != mention["text"]:
                edits.setdefault(mention["path"], {}).setdefault(mention["paragraph"], []).append(
                    (mention["start"], mention["text"], value))
    out = {}
    for path, by_paragraph in edits.items():
        text = base[path]["text"]
        current = {b.index: b.text for b in blocks(text)}
        changed = {}
        for index, changes in by_paragraph.items():
            body = current.get(index)
            if body is None:
                continue
            for start, old, new in sorted(changes, reverse=True):
                if body[start:start + len(old)] == old:
                    body = body[:start] + new + body[start + len(old):]
            changed[index] = body
        out[path] = replace_blocks(text, changed)
    return out


def plan_writes(state: dict[str, Any], base: dict[str, dict[str, Any]], items: list[dict[str, Any]]
                ) -> tuple[dict[str, dict[str, str]], list[str], list[dict[str, Any]]]:
    """(path → {text, sha256} to write, escalated paths left as they are, items kept as they are)."""
    edited = final_texts(base, items)
    blocked: set[str] = set()
    for item in items:
        decision = item.get("decision") or {"choice": "keep"}
        if item["kind"] == "article":
            if decision["choice"] != "computed":
                blocked.add(item["path"])
        elif decision["choice"] == "keep":
            blocked |= {m["path"] for m in item["mentions"] if base[m["path"]]["escalated"]}
    writes: dict[str, dict[str, str]] = {}
    left: list[str] = []
    paths = set(edited) | {p for p, b in base.items() if b["from"] in ("unit", "draft")}
    for path in sorted(paths):
        entry = base[path]
        if entry["escalated"] and (path in blocked or (entry["from"] == "disk" and path not in edited)):
            left.append(path)  # an article the update could not finish, not settled by the person
            continue
        text = edited.get(path, entry["text"])
        writes[path] = {"text": text, "sha256": entry["sha256"]}
    kept = [item for item in items if (item.get("decision") or {}).get("choice") == "keep"]
    return writes, left, kept
