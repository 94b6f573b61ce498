"""One click, one resume, over real HTTP (uvicorn on 127.0.0.1, SQLite checkpoints): the pending
prompt endpoint, interrupt ids on the wire, 409 for a stale or second resume, owner checks."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from coach.nutrition_rules import RuleBasedNutritionProvider
from coach.runner import CoachRunner
from coach.service import create_app
from coach.settings import CoachSettings
from relais.settings import Settings
from tests.coach.conftest import SEED_TURNS
from tests.coach.test_service import saved_state, turn
from tests.servers import serve

pytestmark = pytest.mark.slow

TOKEN = "tok-pending-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


class SlowMeals(RuleBasedNutritionProvider):
    """The rule-based meal plan, slowed so two resumes really overlap in time."""

    def meal_plan(self, request: Any) -> Any:
        time.sleep(0.6)
        return super().meal_plan(request)


def app(db: Path, **graph: Any) -> Any:
    return create_app(
        lambda: CoachRunner.open(model=None, checkpoint_target=str(db), **graph),
        CoachSettings().on(Settings(external_agent_token=TOKEN)),
    )


def pending(base: str, thread: str, user: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.get(f"{base}/threads/{thread}/pending", params={"user_id": user}, headers=AUTH if headers is None else headers)


def interrupt_of(events: list[tuple[str, Any]]) -> dict[str, Any]:
    return next(data for name, data in events if name == "interrupt")


def test_pending_prompt_is_the_checkpoints_and_owner_checked(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    with serve(app(db), ready_path="/health") as base:
        events = turn(base, {"message": SEED_TURNS[0], "user_id": "alice", "thread_id": "th-a"}, AUTH)
        sent = interrupt_of(events)
        got = pending(base, "th-a", "alice")
        bob = pending(base, "th-a", "bob")
        no_token = pending(base, "th-a", "alice", headers={})
        wrong_token = pending(base, "th-a", "alice", headers={"Authorization": "Bearer nope"})
        unknown = pending(base, "th-none", "alice")
        no_user = httpx.get(f"{base}/threads/th-a/pending", headers=AUTH)
        # bob cannot resume alice's thread either
        hijack = httpx.post(base + "/assistant", json={"message": "Vegan", "user_id": "bob", "thread_id": "th-a"}, headers=AUTH)
    assert len(sent["interrupt_id"]) >= 16  # LangGraph's Interrupt.id travels with the prompt
    assert got.status_code == 200
    body = got.json()["pending"]
    assert body["interrupt_id"] == sent["interrupt_id"]
    assert body["prompt"] == sent["prompt"] and body["choices"] == sent["choices"] and "Vegetarian" in body["choices"]
    assert bob.status_code == 403 and "Vegetarian" not in bob.text
    assert no_token.status_code == 401 and wrong_token.status_code == 401 and TOKEN not in wrong_token.text
    assert unknown.status_code == 200 and unknown.json()["pending"] is None
    assert no_user.status_code == 422
    assert hijack.status_code == 403
    assert saved_state(db, "th-a")["humans"] == [SEED_TURNS[0]]  # nothing of bob's got in


def test_stale_and_repeated_resumes_are_409_and_never_resume_twice(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    with serve(app(db), ready_path="/health") as base:
        first = interrupt_of(turn(base, {"message": SEED_TURNS[0], "user_id": "alice", "thread_id": "t"}, AUTH))
        click = {"message": "Vegetarian", "user_id": "alice", "thread_id": "t", "interrupt_id": first["interrupt_id"]}
        answered = turn(base, click, AUTH)
        second = interrupt_of(answered)
        again = httpx.post(base + "/assistant", json=click, headers=AUTH)
        again_json = httpx.post(base + "/assistant", json=click, headers={**AUTH, "Accept": "application/json"})
        typed = turn(base, {"message": "What should I eat?", "user_id": "alice", "thread_id": "t"}, AUTH)
    assert second["interrupt_id"] != first["interrupt_id"]
    for reply in (again, again_json):
        assert reply.status_code == 409
        assert reply.json()["code"] == "stale_interrupt" and "already answered" in reply.json()["detail"]
        assert reply.json()["pending"]["interrupt_id"] == second["interrupt_id"]
    assert interrupt_of(typed)["interrupt_id"] not in (first["interrupt_id"], second["interrupt_id"])
    # exactly one "vegetarian" resume, then the typed reply: three person messages in the checkpoint
    assert saved_state(db, "t")["humans"] == [SEED_TURNS[0], "I'm vegetarian.", "What should I eat?"]


def test_stale_message_is_in_the_conversations_language(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    with serve(app(db), ready_path="/health") as base:
        first = interrupt_of(turn(base, {"message": "Je veux prendre du muscle : propose-moi un programme", "user_id": "u", "thread_id": "fr"}, AUTH))
        click = {"message": "Végétarien", "user_id": "u", "thread_id": "fr", "interrupt_id": first["interrupt_id"]}
        turn(base, click, AUTH)
        again = httpx.post(base + "/assistant", json=click, headers=AUTH)
    assert again.status_code == 409 and "déjà reçu une réponse" in again.json()["detail"]


def test_two_simultaneous_clicks_resume_once(tmp_path: Path) -> None:
    """Two tabs (or two chatbot instances) send the same click at the same moment."""
    db = tmp_path / "cp.db"
    with serve(app(db, nutrition_provider=SlowMeals()), ready_path="/health") as base:
        turn(base, {"message": SEED_TURNS[0], "user_id": "alice", "thread_id": "d"}, AUTH)
        first = interrupt_of(turn(base, {"message": SEED_TURNS[1], "user_id": "alice", "thread_id": "d"}, AUTH))
        before = saved_state(db, "d")
        click = {"message": "Vegan", "user_id": "alice", "thread_id": "d", "interrupt_id": first["interrupt_id"]}
        statuses: list[int] = []
        bodies: list[str] = []
        gate = threading.Barrier(2)

        def send() -> None:
            gate.wait()
            reply = httpx.post(base + "/assistant", json=click, headers=AUTH, timeout=30)
            statuses.append(reply.status_code)
            bodies.append(reply.text)

        workers = [threading.Thread(target=send) for _ in range(2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    assert sorted(statuses) == [200, 409], statuses
    winner = bodies[statuses.index(200)]
    assert "event: done" in winner and "interrupt_id" in winner
    after = saved_state(db, "d")
    assert after["humans"] == before["humans"] + ["I'm vegan."]  # one resume, one message
    assert after["messages"] == before["messages"] + 4  # one human, one advisor call, its tool, one reply
    assert json.loads(bodies[statuses.index(409)])["code"] == "stale_interrupt"
