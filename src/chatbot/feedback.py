"""What Relais keeps about each answer so that thumbs up/down can be exported and analysed.

Chainlit stores a thumb in its `feedbacks` table against a message id and nothing else. The
answer message therefore carries a small *turn record* in its step metadata (key `relais`):
the question, the channel (help center or coach), the engine, the cited sources, whether the
knowledge base had nothing (`not_found`) and whether the turn handed the thread to the agent.
`relais feedback export` and the admin analytics read those records back with SQL.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from typing import Any, Iterable

from sqlalchemy import text

TURN_KEY = "relais"
HELP_CENTER = "help_center"
COACH = "coach"
CHANNEL_LABELS = {HELP_CENTER: "help center", COACH: "coach"}


def turn_record(*, question: str | None, channel: str, engine: str | None, sources: list[dict[str, Any]],
                handoff: bool = False, failed: bool = False, kind: str | None = None,
                mode: str | None = None) -> dict[str, Any]:
    """The record stored with an answer message (no excerpts: titles and files are enough); the
    engine and the orchestrator's mode live here, not in the answer's text."""
    # the articles the answer cites ("see also" suggestions are not what it was judged on)
    cited = [{"source": str(s.get("source") or ""), "title": str(s.get("title") or "")}
             for s in sources if not s.get("related")]
    return {
        "question": (question or "")[:2000],
        "channel": channel,
        "engine": engine or "",
        "mode": mode or "",
        "sources": cited,
        "kind": kind or "answer",  # "smalltalk": a greeting or thanks, not a question
        # a help-center answer that cites nothing: the knowledge base had no answer
        "not_found": channel == HELP_CENTER and not cited and not failed and not kind,
        # an answer whose sources were marked weak (barely relevant): a gap too
        "weak": channel == HELP_CENTER and bool(cited) and any(s.get("weak") for s in sources if not s.get("related")),
        "handoff": handoff,
        "failed": failed,  # an error was shown (model or knowledge base unavailable)
    }


def record_of(metadata: Any) -> dict[str, Any] | None:
    """The turn record inside a step's metadata (a dict, or the JSON text SQLite gives back)."""
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata) if metadata else {}
        except json.JSONDecodeError:
            return None
    record = metadata.get(TURN_KEY) if isinstance(metadata, dict) else None
    return record if isinstance(record, dict) else None


@dataclass
class FeedbackRow:
    """One rated answer, as exported."""

    feedback_id: str
    thread_id: str
    message_id: str
    rating: str  # "up" | "down"
    comment: str
    question: str
    answer: str
    sources: list[dict[str, str]] = field(default_factory=list)
    mode: str = ""
    engine: str = ""
    answered_at: str = ""


_FEEDBACK_QUERY = """
SELECT f."id" AS feedback_id, f."forId" AS message_id, f."value" AS value, f."comment" AS comment,
       s."threadId" AS thread_id, s."output" AS answer, s."metadata" AS metadata,
       s."createdAt" AS created_at, s."type" AS step_type
FROM feedbacks f JOIN steps s ON s."id" = f."forId"
{where}
ORDER BY s."createdAt"
"""

_THREAD_STEPS_QUERY = """
SELECT "id", "type", "output", "metadata", "createdAt", "parentId" FROM steps
WHERE "threadId" = :thread_id AND "type" IN ('user_message', 'assistant_message', 'run')
ORDER BY "createdAt"
"""


async def collect_feedback(engine: Any, *, since: date | None = None, rating: str | None = None) -> list[FeedbackRow]:
    """Every rated answer (operator export: all users), oldest first.

    The rated message is usually the answer itself; after a coach turn it can be the agent's
    follow-up prompt, so the turn's record is taken from the closest answer before it, and the
    question from the closest user message before that.
    """
    where, params = [], {}
    if since is not None:
        where.append('s."createdAt" >= :since')
        params["since"] = since.isoformat()
    if rating in ("up", "down"):
        where.append('f."value" = :value')
        params["value"] = 1 if rating == "up" else 0
    query = _FEEDBACK_QUERY.format(where=("WHERE " + " AND ".join(where)) if where else "")
    rows: list[FeedbackRow] = []
    async with engine.connect() as conn:
        feedbacks = (await conn.execute(text(query), params)).mappings().all()
        threads: dict[str, list[dict[str, Any]]] = {}
        for fb in feedbacks:
            thread_id = str(fb["thread_id"])
            if thread_id not in threads:
                steps = (await conn.execute(text(_THREAD_STEPS_QUERY), {"thread_id": thread_id})).mappings().all()
                threads[thread_id] = [dict(step) for step in steps]
            rows.append(_row(fb, threads[thread_id]))
    return rows


def _row(fb: Any, steps: list[dict[str, Any]]) -> FeedbackRow:
    message_id = str(fb["message_id"])
    index = next((i for i, s in enumerate(steps) if str(s["id"]) == message_id), len(steps))
    record = record_of(fb["metadata"])
    answer = fb["answer"] or ""
    answer_index = index
    if record is None:  # the browser rated Chainlit's run step (`on_message`): its answer is a child
        children = [i for i, s in enumerate(steps) if str(s.get("parentId") or "") == message_id
                    and record_of(s["metadata"]) is not None]
        if children:
            answer_index = children[-1]
            record, answer = record_of(steps[answer_index]["metadata"]), steps[answer_index]["output"] or ""
    if record is None:  # a follow-up prompt was rated: the turn's answer is just before it
        for i in range(index - 1, -1, -1):
            if steps[i]["type"] == "user_message":
                break
            found = record_of(steps[i]["metadata"])
            if found is not None:
                record, answer_index = found, i
                answer = (steps[i]["output"] or "") + "\n\n" + answer
                break
    question = (record or {}).get("question") or ""
    if not question:
        question = next((steps[i]["output"] or "" for i in range(answer_index - 1, -1, -1)
                         if steps[i]["type"] == "user_message"), "")
    channel = (record or {}).get("channel", "")
    return FeedbackRow(
        feedback_id=str(fb["feedback_id"]),
        thread_id=str(fb["thread_id"]),
        message_id=message_id,
        rating="up" if int(fb["value"]) == 1 else "down",
        comment=fb["comment"] or "",
        question=question,
        answer=answer.strip(),
        sources=list((record or {}).get("sources") or []),
        mode=CHANNEL_LABELS.get(channel, channel),
        engine=(record or {}).get("engine", ""),
        answered_at=str(fb["created_at"] or ""),
    )


# --- formats -------------------------------------------------------------------------------
CSV_COLUMNS = ["answered_at", "rating", "comment", "question", "answer", "sources", "mode", "engine",
               "thread_id", "message_id", "feedback_id"]


def to_jsonl(rows: Iterable[FeedbackRow]) -> str:
    return "".join(json.dumps(asdict(row), ensure_ascii=False) + "\n" for row in rows)


def to_csv(rows: Iterable[FeedbackRow]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        values = asdict(row)
        values["sources"] = "; ".join(f"{s.get('title')} ({s.get('source')})" for s in row.sources)
        writer.writerow(values)
    return out.getvalue()


def to_eval_cases(rows: Iterable[FeedbackRow]) -> str:
    """`relais eval answers` cases from 👎 answers: the question, and the expected facts left
    empty for a person to fill in (each question once)."""
    seen: set[str] = set()
    lines = []
    for row in rows:
        key = " ".join(row.question.lower().split())
        if row.rating != "down" or not key or key in seen:
            continue
        seen.add(key)
        lines.append(json.dumps({"question": row.question, "facts": []}, ensure_ascii=False) + "\n")
    return "".join(lines)


def parse_since(value: str | None) -> date | None:
    """`--since 2026-01-31` (or a full ISO timestamp)."""
    if not value:
        return None
    return datetime.fromisoformat(value).date() if "T" in value else date.fromisoformat(value)
