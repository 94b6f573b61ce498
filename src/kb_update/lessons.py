"""Learning edge: when several units fail the same way, propose one short lesson.

Failures are grouped by their tag (`[derived-amount]`, `[links]`...). A tag shared by at
least `min_units` units that has no lesson yet yields a proposal: the job's template offline,
or a model's one-liner. A person approves it before it joins the shared brief.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from pathlib import Path

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from kb_update.failures import tag_of
from kb_update.job import Job
from kb_update.schemas import LessonDraft
from kb_update.types import Attempt, Lesson
from relais.retry import RetryPolicy

log = logging.getLogger(__name__)

# Failures that say nothing about the brief: a crashed worker, or a call a person must make.
NOT_LESSONS = frozenset({"worker-error", "gate-error", "needs-person", "linked-price"})

LESSON_SYSTEM = (
    "Several workers failed the same check while updating help articles. Write ONE short, general "
    "instruction (at most 30 words) that, added to every worker's brief, prevents this failure. "
    "No article names, no paragraph numbers."
)


def repeated_failures(attempts: list[Attempt], min_units: int) -> dict[str, dict[str, list[str]]]:
    """tag → {unit id → its failure messages} for tags failed by at least `min_units` units."""
    by_tag: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for attempt in attempts:
        for message in attempt["failures"]:
            tag = tag_of(message)
            if tag not in NOT_LESSONS:
                by_tag[tag].setdefault(attempt["unit_id"], []).append(message)
    return {tag: units for tag, units in by_tag.items() if len(units) >= min_units}


def propose_lessons(job: Job, attempts: list[Attempt], known: list[Lesson], min_units: int = 2,
                    model: BaseChatModel | None = None, retry: RetryPolicy | None = None) -> list[Lesson]:
    """New lesson proposals for this round's repeated failures (one per tag, never twice)."""
    seen_tags = {lesson["tag"] for lesson in known}
    proposals: list[Lesson] = []
    for tag, units in sorted(repeated_failures(attempts, min_units).items()):
        if tag in seen_tags:
            continue
        messages = [m for unit_messages in units.values() for m in unit_messages]
        lesson = job.lesson_for(tag, messages, sorted(units))
        if model is not None:
            try:
                draft = _model_lesson(model, tag, messages, retry)
            except Exception:  # a lesson is optional: fall back to the job's template (or none)
                log.warning("lesson writer failed for [%s]; using the job's template", tag, exc_info=True)
            else:
                lesson = Lesson(id="", tag=tag, text=draft, rule=lesson["rule"] if lesson else None,
                                units=sorted(units), status="proposed")
        if lesson is None:
            continue
        lesson["id"] = f"L{len(known) + len(proposals) + 1}"
        proposals.append(lesson)
    return proposals


def _model_lesson(model: BaseChatModel, tag: str, messages: list[str], retry: RetryPolicy | None) -> str:
    prompt = f"Failed check: {tag}\nGate output from the failing units:\n" + "\n".join(f"- {m}" for m in messages)
    draft: LessonDraft = (retry or RetryPolicy()).synchronous()(
        model.with_structured_output(LessonDraft).invoke, [SystemMessage(LESSON_SYSTEM), HumanMessage(prompt)]
    )
    return " ".join(draft.text.split())


def resolve_lesson(lesson: Lesson, answer: object) -> Lesson:
    """Apply a person's answer: True/"approve"/{"approved": True, "text": edited} or a rejection."""
    approved, text = False, lesson["text"]
    if isinstance(answer, dict):
        approved = bool(answer.get("approved", answer.get("approve", False)))
        edited = answer.get("text")
        if isinstance(edited, str) and edited.strip():
            text = " ".join(edited.split())
    elif isinstance(answer, str):
        approved = answer.strip().lower() in {"approve", "approved", "yes", "y", "ok", "oui"}
    else:
        approved = answer is True
    return Lesson(**{**lesson, "text": text, "status": "approved" if approved else "rejected"})  # type: ignore[typeddict-item]


# --- memory across runs ----------------------------------------------------------------------
def load_memory(path: Path | None) -> dict[str, dict[str, str]]:
    """tag → {"status", "text"} of the lessons a person already answered (empty when none)."""
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        log.warning("lesson memory %s unreadable; starting without it", path)
        return {}
    return {str(tag): entry for tag, entry in data.items() if isinstance(entry, dict) and entry.get("status")}


def remember(path: Path | None, lesson: Lesson) -> None:
    """Keep a person's answer to a lesson, so the next run neither asks it again nor forgets it."""
    if path is None or lesson["status"] == "proposed":
        return
    memory = load_memory(path)
    memory[lesson["tag"]] = {"status": lesson["status"], "text": lesson["text"], "rule": lesson["rule"] or ""}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(memory, ensure_ascii=False, indent=1), encoding="utf-8")
    tmp.replace(path)


def remembered_lessons(job: Job, path: Path | None) -> list[Lesson]:
    """The lessons answered in earlier runs, for this run: approved ones join every brief from the
    first round, rejected ones are known (never proposed again). The job's own wording is used
    when it has one (no examples from another change)."""
    out: list[Lesson] = []
    for tag, entry in sorted(load_memory(path).items()):
        fresh = job.lesson_for(tag, [], [])
        text = fresh["text"] if fresh else str(entry.get("text") or "")
        rule = fresh["rule"] if fresh else (entry.get("rule") or None)
        status = "approved" if entry["status"] == "approved" else "rejected"
        out.append(Lesson(id=f"M{len(out) + 1}", tag=tag, text=text, rule=rule, units=[], status=status))
    return out
