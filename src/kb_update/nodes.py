"""The nodes of the knowledge-update graph (`kb_update.graph` wires them): the work rounds, the
lessons, the items left for a person, the one review and the publish."""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any, Literal

from langgraph.config import get_stream_writer
from langgraph.graph import END
from langgraph.types import Command, Send, interrupt

from kb_update.escalations import (
    bases,
    broken_relations,
    collect_items,
    decide,
    disk_texts,
    next_open,
    normalize_decision,
    plan_writes,
)
from kb_update.failures import paragraph_of, tag_of
from kb_update.gates import run_gates
from kb_update.lessons import propose_lessons, remember, remembered_lessons, resolve_lesson
from kb_update.markdown import blocks
from kb_update.publish import publish_texts
from kb_update.review import build_review, render_markdown
from kb_update.run_state import Components, EngineConfig, RunState, UnitTask
from kb_update.splitter import split
from kb_update.types import Attempt, Lesson, Unit, UnitState, WorkerInput
from relais.logging import SecretScrubber

# Gate tags that point at a paragraph to restore, not at one that must change.
_RESTORE_TAGS = frozenset({"out-of-scope", "structure", "links"})


def _approved(lessons: list[Lesson]) -> list[Lesson]:
    return [lesson for lesson in lessons if lesson["status"] == "approved"]


def _is_yes(answer: object) -> bool:
    if isinstance(answer, dict):
        return bool(answer.get("approved", answer.get("approve", False)))
    if isinstance(answer, str):
        return answer.strip().lower() in {"approve", "approved", "publish", "yes", "y", "ok", "oui"}
    return answer is True


class RunNodes:
    """The graph's nodes, over one run's parts and limits."""

    def __init__(self, parts: Components, config: EngineConfig) -> None:
        self.parts, self.config, self.job = parts, config, parts.job
        self.code_gates = self.job.code_gates()

    def split(self, state: RunState) -> dict[str, Any]:
        result = split(self.job, Path(state["kb_dir"]), self.parts.splitter_model, self.parts.retry)
        units = {unit["id"]: unit for unit in result.units}
        status = {
            uid: UnitState(status="queued", attempts=0, output=None, last_failure=[], history=[],
                           scope=list(unit["scope"]), escalation=None)
            for uid, unit in units.items()
        }
        get_stream_writer()({"event": "split", "hits": len(result.hits), "units": list(units),
                             "discarded": sum(1 for d in result.decisions if not d["keep"]),
                             "engine": result.engine, "briefs": {u["id"]: u["brief"] for u in result.units}})
        return {"hits": result.hits, "decisions": result.decisions, "units": units, "order": list(units),
                "status": status, "round": 0, "lessons": remembered_lessons(self.job, self.parts.lesson_memory),
                "proposals": [], "engine": self.parts.engine}

    def plan_round(self, state: RunState) -> dict[str, Any]:
        status = state["status"]
        retry = [uid for uid in state["order"] if status[uid]["status"] == "retry"]
        queued = [uid for uid in state["order"] if status[uid]["status"] == "queued"]
        return {"round": state["round"] + 1, "in_flight": retry + queued[: self.config.wave_size]}

    def fan_out(self, state: RunState) -> list[Send]:
        lessons = _approved(state["lessons"])
        sends = []
        for uid in state["in_flight"]:
            unit_state = state["status"][uid]
            unit = Unit(**{**state["units"][uid], "scope": unit_state["scope"]})  # type: ignore[typeddict-item]
            sends.append(Send("unit", UnitTask(unit=unit, attempt=unit_state["attempts"] + 1,
                                               round=state["round"], evidence=unit_state["last_failure"],
                                               lessons=lessons)))
        return sends

    def unit(self, task: UnitTask) -> dict[str, Any]:
        unit = task["unit"]
        get_stream_writer()({"event": "unit-start", "unit": unit["id"], "attempt": task["attempt"]})
        work = WorkerInput(
            unit_id=unit["id"], path=unit["path"], title=unit["title"], brief=unit["brief"],
            article=unit["original"], decisions=self.job.decisions(), lessons=task["lessons"],
            attempt=task["attempt"], evidence=task["evidence"], scope=unit["scope"], checks=self.job.checks(),
            discarded=unit["discarded"],
        )
        started = time.perf_counter()
        output, error, gates, skipped = None, None, {}, []
        try:
            output = self.parts.worker(work)
        except Exception as exc:  # noqa: BLE001 - a failing worker fails its unit only
            error = f"{type(exc).__name__}: {exc}"
        if output is not None:
            try:
                gates, skipped = run_gates(unit, output, self.code_gates, self.parts.judge, self.parts.judge_is_model)
            except Exception as exc:  # noqa: BLE001 - a crashing gate must not pass a unit
                error = f"a gate raised {type(exc).__name__}: {exc}"
        failures = [message for messages in gates.values() for message in messages]
        if error and self.parts.secrets:
            error = SecretScrubber(self.parts.secrets).scrub(error)
        if error:
            failures.append(f"[worker-error] {error}" if output is None else f"[gate-error] {error}")
        attempt = Attempt(
            unit_id=unit["id"], attempt=task["attempt"], round=task["round"], output=output, gates=gates,
            skipped=skipped, failures=failures, error=error, evidence=task["evidence"],
            lessons=[lesson["id"] for lesson in task["lessons"]], scope=unit["scope"],
            seconds=round(time.perf_counter() - started, 4),
        )
        return {"attempts": [attempt]}

    def assess(self, state: RunState) -> dict[str, Any]:
        current = [a for a in state["attempts"] if a["round"] == state["round"]]
        status = copy.deepcopy(state["status"])
        for attempt in current:
            record = status[attempt["unit_id"]]
            record["attempts"] = attempt["attempt"]
            record["history"].append(attempt)
            record["output"] = attempt["output"]
            record["last_failure"] = attempt["failures"]
            if not attempt["failures"]:
                record["status"] = "done"
                continue
            record["scope"] = _widen_scope(record["scope"], attempt["failures"],
                                           state["units"][attempt["unit_id"]]["original"])
            person = [f for f in attempt["failures"] if self.job.needs_person(f) or tag_of(f) == "needs-person"]
            if person:
                record["status"], record["escalation"] = "escalated", "needs a person: " + " | ".join(person)
            elif attempt["attempt"] >= self.config.max_attempts:
                record["status"] = "escalated"
                record["escalation"] = f"still failing after {attempt['attempt']} attempts (MAX_ATTEMPTS)"
            else:
                record["status"] = "retry"
        proposals: list[Lesson] = []
        if any(record["status"] in ("queued", "retry") for record in status.values()):  # someone can benefit
            proposals = propose_lessons(self.job, [a for a in current if a["failures"]], state["lessons"],
                                        self.config.lesson_min_units, self.parts.lesson_model, self.parts.retry)
        return {"status": status, "proposals": proposals}

    def route(self, state: RunState) -> Literal["learn", "plan_round", "collect"]:
        if state["proposals"]:
            return "learn"
        if any(s["status"] in ("queued", "retry") for s in state["status"].values()):
            return "plan_round"
        return "collect"

    def learn(self, state: RunState) -> dict[str, Any]:
        lesson = state["proposals"][0]
        evidence = {
            uid: [m for m in state["status"][uid]["last_failure"] if tag_of(m) == lesson["tag"]]
            for uid in lesson["units"]
        }
        answer = interrupt({
            "kind": "lesson",
            "prompt": f"Lesson proposed after {len(lesson['units'])} units failed the same way "
                      f"([{lesson['tag']}]). Add it to every worker's brief?",
            "lesson": lesson, "evidence": evidence,
        })
        resolved = resolve_lesson(lesson, answer)
        remember(self.parts.lesson_memory, resolved)  # idempotent: a re-run of this node writes the same
        return {"lessons": state["lessons"] + [resolved], "proposals": state["proposals"][1:]}

    def collect(self, state: RunState) -> dict[str, Any]:
        """The whole knowledge base after the run: every amount still following the old value."""
        kb_dir = Path(state["kb_dir"])
        base = bases(kb_dir, state)
        scan = getattr(self.job, "derived_amounts", None)
        derived = []
        if scan is not None:
            allowed: dict[str, Any] = {}
            kept = {d["hit_id"] for d in state.get("decisions", []) if d["keep"]}
            for hit in state.get("hits", []):
                if hit["id"] not in kept:
                    allowed.setdefault(hit["path"], []).append((hit["paragraph"], hit["text"]))
            derived = scan(disk_texts(kb_dir), {p: b["text"] for p, b in base.items()}, allowed)
        items = collect_items(derived, state, base)
        auto = getattr(self.job, "auto_decision", None)
        for item in items:
            choice = auto(item) if auto is not None else None
            if choice is not None:
                item["decision"] = {"choice": choice, "auto": True}
        touched = {m["path"] for item in items for m in item["mentions"]} | {
            state["units"][uid]["path"] for uid in state.get("order", [])}
        return {"items": items, "bases": {p: b for p, b in base.items() if p in touched}}

    def decide(self, state: RunState) -> dict[str, Any]:
        items = state["items"]
        index = next_open(items)
        if index is None:
            return {}
        item = items[index]
        answer = interrupt({
            "kind": "decision",
            "prompt": f"Decide item {index + 1} of {len(items)} before publishing.",
            "item": item, "index": index, "total": len(items),
            "open": sum(1 for i in items if i["decision"] is None),
        })
        decision = normalize_decision(answer, item) or {"choice": "keep", "all": False}
        return {"items": decide(items, index, decision)}

    def after_decide(self, state: RunState) -> Literal["decide", "review"]:
        return "decide" if next_open(state.get("items", [])) is not None else "review"

    def review(self, state: RunState) -> Command[Literal["publish", "__end__"]]:
        writes, left, kept = plan_writes(state, state.get("bases", {}), state.get("items", []))
        report = build_review(self.job.summary(), state, {p: w["text"] for p, w in writes.items()})
        originals = {p: b["text"] for p, b in state.get("bases", {}).items()}
        report["writes"] = sorted(p for p, w in writes.items() if w["text"] != _disk(state, p, originals))
        report["texts"] = {p: [_disk(state, p, originals) or "", writes[p]["text"]] for p in report["writes"]}
        report["left"] = left
        report["kept"] = kept
        report["items"] = state.get("items", [])
        final = {**disk_texts(Path(state["kb_dir"])), **originals, **{p: w["text"] for p, w in writes.items()}}
        report["broken"] = broken_relations(report["items"], final)
        report["publishable"] = report["writes"]
        if not report["publishable"]:
            return Command(goto=END, update={"review": report, "outcome": "nothing-to-publish"})
        answer = interrupt({
            "kind": "publish",
            "prompt": f"Publish {len(report['publishable'])} updated article(s)? Nothing is written until you approve.",
            "review": report, "markdown": render_markdown(report),
        })
        if _is_yes(answer):
            return Command(goto="publish", update={"review": report, "decision": "approved"})
        return Command(goto=END, update={"review": report, "decision": "rejected", "outcome": "rejected"})

    def publish(self, state: RunState) -> dict[str, Any]:
        writes, left, _kept = plan_writes(state, state.get("bases", {}), state.get("items", []))
        todo = {p: w for p, w in writes.items() if p in set(state["review"]["writes"])}
        report = publish_texts(Path(state["kb_dir"]), todo, left, self.parts.reingest, self.parts.journal,
                               progress=get_stream_writer())  # one event per article written, then the index
        return {"published": report, "outcome": "published"}


def _disk(state: RunState, path: str, bases_text: dict[str, str]) -> str | None:
    """The article as it is on disk (the unit's original, or the text read at collect time)."""
    for unit in state.get("units", {}).values():
        if unit["path"] == path:
            return unit["original"]
    entry = state.get("bases", {}).get(path)
    return entry["text"] if entry and entry["from"] == "disk" else bases_text.get(path)


def _widen_scope(scope: list[int], failures: list[str], original: str) -> list[int]:
    """A paragraph a gate says must change (a derived total, a sum) is price-bearing too."""
    count = len(blocks(original))
    extra = {
        p for p in (paragraph_of(m) for m in failures if tag_of(m) not in _RESTORE_TAGS)
        if p is not None and 0 <= p < count
    }
    return sorted(set(scope) | extra)
