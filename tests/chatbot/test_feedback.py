"""Feedback through the data layer (SQLite always, Postgres in the scale run): one thumb per
message, read back with the steps on resume, exported with the turn it rated."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from chainlit.types import Feedback
from chainlit.user import User
from typer.testing import CliRunner

from chatbot.feedback import (
    COACH,
    HELP_CENTER,
    TURN_KEY,
    collect_feedback,
    to_csv,
    to_eval_cases,
    to_jsonl,
    turn_record,
)
from chatbot.persistence import create_data_layer
from relais.settings import get_settings


def _at(minutes: int, day: datetime | None = None) -> str:
    base = day or datetime(2026, 3, 10, 9, 0, tzinfo=timezone.utc)
    return (base + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


async def _step(layer, thread_id: str, kind: str, output: str, created: str, record: dict | None = None) -> str:
    step_id = str(uuid.uuid4())
    # outside a Chainlit session: the undecorated write (Chainlit queues it until a user message)
    await SQLAlchemyDataLayer.create_step.__wrapped__(layer, {
        "id": step_id, "threadId": thread_id, "name": "Relais" if kind != "user_message" else "alice",
        "type": kind, "output": output, "createdAt": created, "streaming": False,
        "metadata": {TURN_KEY: record} if record else {},
    })
    return step_id


async def _conversation(layer, identifier: str, day: datetime | None = None) -> dict[str, str]:
    """A help-center answer with sources, a not-found answer, and a coach turn whose follow-up
    prompt (the last message of the turn, the one Chainlit puts the thumbs under) is rated."""
    user = await layer.create_user(User(identifier=identifier))
    thread_id = str(uuid.uuid4())
    await layer.update_thread(thread_id, user_id=user.id, name="pricing")
    ids = {"thread": thread_id, "user": user.id}
    await _step(layer, thread_id, "user_message", "How much is the base plan?", _at(0, day))
    ids["price"] = await _step(layer, thread_id, "assistant_message", "The base plan costs $10/month.", _at(1, day), turn_record(
        question="How much is the base plan?", channel=HELP_CENTER, engine="offline",
        sources=[{"source": "plans-and-pricing.md", "title": "Plans and pricing", "excerpt": "…"}]))
    await _step(layer, thread_id, "user_message", "Do you sell gift cards?", _at(2, day))
    ids["gap"] = await _step(layer, thread_id, "assistant_message", "I could not find this.", _at(3, day), turn_record(
        question="Do you sell gift cards?", channel=HELP_CENTER, engine="offline", sources=[]))
    await _step(layer, thread_id, "user_message", "Build me a workout plan", _at(4, day))
    await _step(layer, thread_id, "assistant_message", "Here is your 3-day plan.", _at(5, day), turn_record(
        question="Build me a workout plan", channel=COACH, engine="", sources=[], handoff=True))
    ids["prompt"] = await _step(layer, thread_id, "assistant_message", "Any injury or allergy?", _at(6, day))
    return ids


async def test_one_thumb_per_message_read_back_on_resume(backend: str) -> None:
    layer = await create_data_layer(get_settings())
    ids = await _conversation(layer, f"alice-{uuid.uuid4().hex[:8]}")
    # the browser sends no id the first time, and a forged id / thread later: both are ignored
    first = await layer.upsert_feedback(Feedback(forId=ids["price"], value=1, threadId=ids["thread"]))
    second = await layer.upsert_feedback(Feedback(forId=ids["price"], value=0, comment="wrong price",
                                                  id=str(uuid.uuid4()), threadId=str(uuid.uuid4())))
    assert second == first
    await layer.upsert_feedback(Feedback(forId=ids["gap"], value=0, threadId=ids["thread"]))
    with pytest.raises(ValueError):
        await layer.upsert_feedback(Feedback(forId=str(uuid.uuid4()), value=1, threadId=ids["thread"]))

    thread = await layer.get_thread(ids["thread"])  # what Chainlit sends back on resume
    steps = {step["id"]: step for step in thread["steps"]}
    assert len(thread["steps"]) == 7, "a message rated twice must not come back twice"
    assert steps[ids["price"]]["feedback"] == {"forId": ids["price"], "id": first, "value": 0, "comment": "wrong price"}
    assert steps[ids["gap"]]["feedback"]["value"] == 0
    assert steps[ids["prompt"]].get("feedback") is None
    await layer.engine.dispose()


async def test_export_carries_the_rated_turn(backend: str) -> None:
    layer = await create_data_layer(get_settings())
    ids = await _conversation(layer, f"bea-{uuid.uuid4().hex[:8]}")
    await layer.upsert_feedback(Feedback(forId=ids["price"], value=1))
    await layer.upsert_feedback(Feedback(forId=ids["gap"], value=0, comment="we do sell them"))
    await layer.upsert_feedback(Feedback(forId=ids["prompt"], value=0))
    # the browser's way: the thumb on Chainlit's run step (`on_message`), the answer inside it
    run_id, run_answer = str(uuid.uuid4()), str(uuid.uuid4())
    create = SQLAlchemyDataLayer.create_step.__wrapped__
    await _step(layer, ids["thread"], "user_message", "Can I freeze my membership?", _at(7))
    await create(layer, {"id": run_id, "threadId": ids["thread"], "name": "on_message", "type": "run", "output": "",
                         "createdAt": _at(8), "streaming": False, "metadata": {}})
    await create(layer, {"id": run_answer, "threadId": ids["thread"], "parentId": run_id, "name": "Relais",
                         "type": "assistant_message", "output": "Yes, up to 3 months.", "createdAt": _at(9),
                         "streaming": False, "metadata": {TURN_KEY: turn_record(
                             question="Can I freeze my membership?", channel=HELP_CENTER, engine="offline",
                             sources=[{"source": "freeze-membership.md", "title": "Freeze"}])}})
    await layer.upsert_feedback(Feedback(forId=run_id, value=1))
    older = await _conversation(layer, f"old-{uuid.uuid4().hex[:8]}", day=datetime(2025, 1, 5, tzinfo=timezone.utc))
    await layer.upsert_feedback(Feedback(forId=older["price"], value=0))

    rows = [r for r in await collect_feedback(layer.engine) if r.thread_id in (ids["thread"], older["thread"])]
    assert len(rows) == 5
    mine = {r.message_id: r for r in rows if r.thread_id == ids["thread"]}
    run = mine[run_id]
    assert (run.rating, run.question, run.answer) == ("up", "Can I freeze my membership?", "Yes, up to 3 months.")
    assert run.sources == [{"source": "freeze-membership.md", "title": "Freeze"}]
    price, gap, coach = mine[ids["price"]], mine[ids["gap"]], mine[ids["prompt"]]
    assert (price.rating, price.question, price.mode, price.engine) == ("up", "How much is the base plan?", "help center", "offline")
    assert price.answer == "The base plan costs $10/month."
    assert price.sources == [{"source": "plans-and-pricing.md", "title": "Plans and pricing"}]
    assert (gap.rating, gap.comment, gap.sources) == ("down", "we do sell them", [])
    # the coach's follow-up prompt was rated: the export shows the coach turn it belongs to
    assert (coach.mode, coach.question) == ("coach", "Build me a workout plan")
    assert coach.answer.startswith("Here is your 3-day plan.") and coach.answer.endswith("Any injury or allergy?")

    recent = await collect_feedback(layer.engine, since=datetime(2026, 1, 1).date())
    assert older["thread"] not in {r.thread_id for r in recent}
    assert ids["thread"] in {r.thread_id for r in recent}

    lines = [json.loads(line) for line in to_jsonl(rows).splitlines()]
    assert {line["rating"] for line in lines} == {"up", "down"} and all("question" in line for line in lines)
    table = list(csv.DictReader(io.StringIO(to_csv(rows))))
    assert any(row["sources"] == "Plans and pricing (plans-and-pricing.md)" for row in table)
    cases = [json.loads(line) for line in to_eval_cases(rows).splitlines()]
    # 👎 only, each question once (the old thread's pricing 👎 and this one's gap and coach 👎)
    assert sorted(c["question"] for c in cases) == ["Build me a workout plan", "Do you sell gift cards?", "How much is the base plan?"]
    assert all(c["facts"] == [] for c in cases)
    await layer.engine.dispose()


def test_cli_export_formats_and_eval_cases(tmp_path) -> None:
    from cli.app import app

    async def rate() -> None:
        layer = await create_data_layer(get_settings())
        ids = await _conversation(layer, "carla")
        await layer.upsert_feedback(Feedback(forId=ids["price"], value=1))
        await layer.upsert_feedback(Feedback(forId=ids["gap"], value=0, comment="missing"))
        await layer.engine.dispose()

    asyncio.run(rate())

    runner = CliRunner()
    jsonl = runner.invoke(app, ["feedback", "export"])
    assert jsonl.exit_code == 0, jsonl.output
    rows = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert [(r["rating"], r["question"]) for r in rows] == [("up", "How much is the base plan?"), ("down", "Do you sell gift cards?")]

    out = tmp_path / "fb.csv"
    as_csv = runner.invoke(app, ["feedback", "export", "--format", "csv", "--since", "2026-03-10", "--out", str(out)])
    assert as_csv.exit_code == 0, as_csv.output
    table = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["comment"] for r in table] == ["", "missing"] and table[0]["mode"] == "help center"
    later = runner.invoke(app, ["feedback", "export", "--since", "2026-03-11"])
    assert later.exit_code == 0 and later.stdout == ""

    cases = runner.invoke(app, ["feedback", "export", "--as-eval"])
    assert cases.exit_code == 0, cases.output
    assert [json.loads(line) for line in cases.stdout.splitlines()] == [{"question": "Do you sell gift cards?", "facts": []}]
    assert runner.invoke(app, ["feedback", "export", "--since", "yesterday"]).exit_code != 0
