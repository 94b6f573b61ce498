"""The analytics figures, computed with SQL from a real chat database (SQLite always, Postgres in
the scale run), and the grouping of not-found questions."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from chainlit.types import Feedback
from chainlit.user import User

from chatbot.admin.analytics import compute, group_questions, render_html
from chatbot.feedback import COACH, HELP_CENTER, TURN_KEY, turn_record
from chatbot.persistence import create_data_layer
from relais.settings import get_settings

NOW = datetime(2099, 6, 15, 12, 0, tzinfo=UTC)  # far ahead: other tests' rows in a shared database fall outside the window
PRICING = {"source": "plans-and-pricing.md", "title": "Plans and pricing"}
FREEZE = {"source": "membership-freeze.md", "title": "Freezing a membership"}


async def _turn(layer, thread_id: str, days_ago: int, question: str, channel: str, sources: list[dict],
                handoff: bool = False, rating: int | None = None, on_run: bool = False) -> str:
    """One question and its answer; `on_run`: the answer sits in Chainlit's `run` step and the thumb
    is put on that run, as the browser does."""
    created = (NOW - timedelta(days=days_ago, minutes=len(question))).isoformat().replace("+00:00", "Z")
    create = SQLAlchemyDataLayer.create_step.__wrapped__  # outside a Chainlit session
    await create(layer, {"id": str(uuid.uuid4()), "threadId": thread_id, "name": "user", "type": "user_message",
                         "output": question, "createdAt": created, "streaming": False, "metadata": {}})
    run_id = str(uuid.uuid4()) if on_run else None
    if run_id:
        await create(layer, {"id": run_id, "threadId": thread_id, "name": "on_message", "type": "run",
                             "output": "", "createdAt": created, "streaming": False, "metadata": {}})
    answer_id = str(uuid.uuid4())
    record = turn_record(question=question, channel=channel, engine="offline", sources=sources, handoff=handoff)
    await create(layer, {"id": answer_id, "threadId": thread_id, "name": "Relais", "type": "assistant_message",
                         "output": "…", "createdAt": created, "streaming": False, "metadata": {TURN_KEY: record},
                         **({"parentId": run_id} if run_id else {})})
    if rating is not None:
        await layer.upsert_feedback(Feedback(forId=run_id or answer_id, value=rating))
    return answer_id


async def test_figures_from_the_chat_database(backend: str) -> None:
    layer = await create_data_layer(get_settings())
    user = await layer.create_user(User(identifier=f"ana-{uuid.uuid4().hex[:8]}"))
    thread = str(uuid.uuid4())
    await layer.update_thread(thread, user_id=user.id)
    await _turn(layer, thread, 0, "How much is the base plan?", HELP_CENTER, [PRICING], rating=0)
    await _turn(layer, thread, 0, "What does premium cost?", HELP_CENTER, [PRICING], rating=1)
    await _turn(layer, thread, 1, "How much is premium per month?", HELP_CENTER, [PRICING, FREEZE], rating=0, on_run=True)
    await _turn(layer, thread, 1, "Can I freeze my membership?", HELP_CENTER, [FREEZE])
    await _turn(layer, thread, 2, "Do you sell gift cards?", HELP_CENTER, [], rating=0)
    await _turn(layer, thread, 2, "Can I buy a gift card for a friend?", HELP_CENTER, [])
    await _turn(layer, thread, 3, "Is there parking near the gym?", HELP_CENTER, [])
    await _turn(layer, thread, 3, "Build me a workout plan", COACH, [], handoff=True)
    await _turn(layer, thread, 3, "Add a rest day", COACH, [])
    await _turn(layer, thread, 60, "Do you sell gift cards?", HELP_CENTER, [])  # outside the window

    a = await compute(layer.engine, days=30, now=NOW)
    assert (a.questions, a.help_center, a.coach) == (9, 7, 2)
    assert (a.not_found, a.handoffs) == (3, 1)
    assert abs(a.not_found_rate - 3 / 7) < 1e-9
    assert (a.up, a.down) == (1, 3)
    assert [day for day, _, _ in a.per_day] == ["2099-06-12", "2099-06-13", "2099-06-14", "2099-06-15"]
    assert a.per_day[0] == ("2099-06-12", 1, 2)
    pricing, freeze = (next(r for r in a.articles if r.source == s["source"]) for s in (PRICING, FREEZE))
    assert (pricing.cited, pricing.up, pricing.down) == (3, 1, 2) and abs(pricing.down_rate - 2 / 3) < 1e-9
    assert (freeze.cited, freeze.up, freeze.down, freeze.title) == (2, 0, 1, "Freezing a membership")
    assert a.articles[0].source == FREEZE["source"]  # worst 👎 rate first (1 of 1 rated)
    assert [g.count for g in a.gaps] == [2, 1]
    assert {a.gaps[0].question, *a.gaps[0].examples} == {"Do you sell gift cards?", "Can I buy a gift card for a friend?"}

    html = render_html(a)
    assert "Do you sell gift cards?" in html and "Plans and pricing" in html and "42.9 %" in html
    empty = await compute(layer.engine, days=1, now=NOW + timedelta(days=400))
    assert empty.questions == 0 and empty.not_found_rate is None and "No questions" in render_html(empty)
    await layer.engine.dispose()


def test_not_found_questions_grouped_by_similarity() -> None:
    rows = [(q, f"2026-06-0{i % 9 + 1}") for i, q in enumerate([
        "Do you sell gift cards?", "do you sell gift cards?", "Can I buy a gift card?", "Gift cards for sale?",
        "Is there parking at the gym?", "Where can I park near the gym?", "Carte cadeau disponible ?",
        "What is the wifi password?",
    ])]
    groups = group_questions(rows)
    gift = groups[0]
    assert gift.count == 4 and gift.question == "Do you sell gift cards?"
    assert {"Can I buy a gift card?", "Gift cards for sale?"} <= set(gift.examples)
    parking = next(g for g in groups if "park" in g.question.lower())
    assert parking.count == 2
    assert sum(g.count for g in groups) == len(rows)
    assert any(g.question == "What is the wifi password?" and g.count == 1 for g in groups)
    assert group_questions([]) == []


async def test_weakly_answered_questions_are_counted_and_listed_with_the_gaps(backend: str) -> None:
    later = NOW + timedelta(days=900)  # a window of its own in a shared database
    layer = await create_data_layer(get_settings())
    user = await layer.create_user(User(identifier=f"weak-{uuid.uuid4().hex[:8]}"))
    thread = str(uuid.uuid4())
    await layer.update_thread(thread, user_id=user.id)
    days_before = (later - NOW).days
    await _turn(layer, thread, -days_before, "Do you have a sauna?", HELP_CENTER, [{**FREEZE, "weak": True}])
    await _turn(layer, thread, -days_before, "How much is premium?", HELP_CENTER, [PRICING])
    await _turn(layer, thread, -days_before, "Is there a swimming pool?", HELP_CENTER, [])

    a = await compute(layer.engine, days=2, now=later)
    assert (a.help_center, a.not_found, a.weak) == (3, 1, 1)
    assert {g.question for g in a.gaps} == {"Do you have a sauna?", "Is there a swimming pool?"}
    assert "Weakly answered" in render_html(a)
    await layer.engine.dispose()


def test_the_turn_record_marks_an_answer_weak_only_from_its_cited_sources() -> None:
    assert turn_record(question="q", channel=HELP_CENTER, engine="offline", sources=[{**PRICING, "weak": True}])["weak"]
    related = [PRICING, {**FREEZE, "weak": True, "related": True}]
    assert not turn_record(question="q", channel=HELP_CENTER, engine="offline", sources=related)["weak"]
    assert not turn_record(question="q", channel=HELP_CENTER, engine="offline", sources=[])["weak"]
