"""The coach service over real HTTP (uvicorn on 127.0.0.1): SSE protocol, resume, errors, guards."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse
from langgraph.checkpoint.sqlite import SqliteSaver

from coach.graph import build_coach_graph
from coach.runner import CoachRunner
from coach.service import create_app
from coach.settings import CoachSettings
from relais.settings import Settings
from relais.testing import ScriptedChatModel, tool_call
from tests.coach.conftest import MEAT_AND_FISH, SEED_TURNS
from tests.servers import serve

pytestmark = pytest.mark.slow


def offline_factory(db: Path) -> Any:
    return lambda: CoachRunner.open(model=None, checkpoint_target=str(db))


def turn(
    base: str, body: dict[str, Any], headers: dict[str, str] | None = None
) -> list[tuple[str, Any]]:
    """POST /assistant and read every SSE event as (event, parsed data)."""
    with (
        httpx.Client(timeout=30) as client,
        connect_sse(
            client, "POST", base + "/assistant", json=body, headers=headers or {}
        ) as source,
    ):
        assert source.response.status_code == 200
        assert source.response.headers["content-type"].startswith("text/event-stream")
        return [(e.event, json.loads(e.data)) for e in source.iter_sse()]


def names(events: list[tuple[str, Any]]) -> list[str]:
    out: list[str] = []
    for name, _ in events:
        if not out or out[-1] != name:
            out.append(name)
    return out


def content(events: list[tuple[str, Any]]) -> str:
    return "".join(data["content"] for name, data in events if name == "message")


def saved_state(db: Path, thread_id: str) -> dict[str, Any]:
    """Read the thread straight from the SQLite checkpoint file (a second, independent reader)."""
    with SqliteSaver.from_conn_string(str(db)) as saver:
        snapshot = build_coach_graph(None, saver).get_state(
            {"configurable": {"thread_id": thread_id}}
        )
        return {
            "messages": len(snapshot.values.get("messages", [])),
            "paused": bool(snapshot.interrupts),
            "agent": snapshot.values.get("last_active_agent"),
            "humans": [m.content for m in snapshot.values.get("messages", []) if m.type == "human"],
        }


def test_three_seed_turns_over_sse_resume_the_same_thread(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    with serve(create_app(offline_factory(db), CoachSettings()), ready_path="/health") as base:
        assert httpx.get(base + "/health").json() == {"status": "ok", "engine": "offline"}
        replies, sizes = [], []
        for text in SEED_TURNS:
            events = turn(
                base,
                {"message": text, "user_id": "u1", "conversation_history": [], "thread_id": "th-1"},
            )
            assert names(events) == ["tool_call", "message", "interrupt", "done"]
            tool = events[0][1]["message"]
            assert events[0][1]["name"] == tool.split("(")[0]  # the tool's name, to title the step
            interrupt = next(data for name, data in events if name == "interrupt")
            assert interrupt["kind"] == "constraints" and "Nothing to add" in interrupt["choices"]
            assert events[-1] == ("done", {})
            replies.append((tool, content(events), interrupt["agent"]))
            sizes.append(saved_state(db, "th-1")["messages"])
    assert [r[2] for r in replies] == ["workout_advisor", "nutrition_advisor", "nutrition_advisor"]
    assert (
        replies[0][0] == "workout_plan(goal=mixed)"
        and replies[2][0] == "meal_plan(goal=mixed, diet=vegetarian)"
    )
    third = replies[2][1].lower()
    assert not [w for w in MEAT_AND_FISH if w in third] and "build muscle and lose fat" in third
    # resume, not restart: one growing history, every user message exactly once
    assert sizes == [4, 8, 12]
    assert saved_state(db, "th-1")["humans"] == SEED_TURNS


def test_thread_key_falls_back_to_user_id(tmp_path: Path) -> None:
    db = tmp_path / "cp.db"
    with serve(create_app(offline_factory(db), CoachSettings())) as base:
        turn(base, {"message": SEED_TURNS[0], "user_id": "alice", "conversation_history": []})
        events = turn(base, {"message": "Vegan", "user_id": "alice", "conversation_history": []})
        assert "vegan" in content(events).lower()
    state = saved_state(db, "alice")
    assert (
        state["humans"] == [SEED_TURNS[0], "I'm vegan."] and state["agent"] == "nutrition_advisor"
    )


def test_error_inside_a_node_then_the_thread_still_works() -> None:
    model = ScriptedChatModel(
        [RuntimeError("upstream 500"), tool_call("workout_plan", {"goal": "mixed"}), "Plan."]
    )

    @contextlib.asynccontextmanager
    async def factory() -> AsyncIterator[CoachRunner]:
        yield CoachRunner(build_coach_graph(model))

    with serve(create_app(factory, CoachSettings())) as base:
        body = {
            "message": SEED_TURNS[0],
            "user_id": "u",
            "conversation_history": [],
            "thread_id": "e",
        }
        events = turn(base, body)
        assert names(events) == ["error", "done"]
        assert "upstream 500" not in events[0][1]["message"]
        events = turn(base, body)  # the person sends it again (a failed turn left nothing to follow up)
        assert (
            names(events) == ["tool_call", "message", "interrupt", "done"]
            and content(events) == "Plan."
        )


def test_json_fallback(tmp_path: Path) -> None:
    with serve(create_app(offline_factory(tmp_path / "cp.db"), CoachSettings())) as base:
        reply = httpx.post(
            base + "/assistant",
            json={"message": "I'm vegan, what should I eat?", "user_id": "u"},
            headers={"Accept": "application/json"},
            timeout=30,
        )
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("application/json")
    data = reply.json()
    assert (
        "## Your day of meals" in data["response"]
        and data["interrupt"]["agent"] == "nutrition_advisor"
    )
    assert data["tool_calls"] == ["meal_plan(goal=general, diet=vegan)"] and data["error"] is None


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (json.dumps({"user_id": "u"}).encode(), "message"),
        (json.dumps({"message": 123, "user_id": "u"}).encode(), "message"),
        (json.dumps({"message": "   ", "user_id": "u"}).encode(), "must not be empty"),
        (json.dumps({"message": "hi"}).encode(), "user_id"),
        (
            json.dumps({"message": "hi", "user_id": "u", "conversation_history": "oops"}).encode(),
            "conversation_history",
        ),
        (json.dumps({"message": "hi", "user_id": "u", "thread_id": 7}).encode(), "thread_id"),
    ],
)
def test_bad_bodies_are_422_with_a_reason(tmp_path: Path, raw: bytes, reason: str) -> None:
    with serve(create_app(offline_factory(tmp_path / "cp.db"), CoachSettings())) as base:
        reply = httpx.post(
            base + "/assistant", content=raw, headers={"Content-Type": "application/json"}
        )
    assert reply.status_code == 422 and reason in reply.json()["detail"]


def test_bearer_token_is_required_when_configured(tmp_path: Path) -> None:
    token = "tok-very-secret-123"
    body = {"message": "squats?", "user_id": "u"}
    with serve(
        create_app(offline_factory(tmp_path / "cp.db"), CoachSettings().on(Settings(external_agent_token=token)))
    ) as base:
        missing = httpx.post(base + "/assistant", json=body)
        wrong = httpx.post(base + "/assistant", json=body, headers={"Authorization": "Bearer nope"})
        events = turn(base, body, headers={"Authorization": f"Bearer {token}"})
    for reply in (missing, wrong):
        assert reply.status_code == 401 and token not in reply.text
        assert reply.headers["www-authenticate"] == "Bearer"
    assert names(events)[-1] == "done"


def test_message_size_limit_is_413(tmp_path: Path) -> None:
    with serve(
        create_app(offline_factory(tmp_path / "cp.db"), CoachSettings(agent_max_message_chars=100))
    ) as base:
        too_long = httpx.post(base + "/assistant", json={"message": "x" * 101, "user_id": "u"})
        huge = httpx.post(
            base + "/assistant",
            json={"message": "hi", "user_id": "u", "conversation_history": ["y" * 400_000]},
        )
        ok = httpx.post(
            base + "/assistant",
            json={"message": "x" * 100, "user_id": "u"},
            headers={"Accept": "application/json"},
            timeout=30,
        )
    assert too_long.status_code == 413 and "101 > 100" in too_long.json()["detail"]
    assert huge.status_code == 413
    assert ok.status_code == 200


def test_rate_limit_is_429_per_client(tmp_path: Path) -> None:
    settings = CoachSettings(agent_rate_limit_per_minute=2).on(Settings(external_agent_token="tok-abcdef"))
    auth = {"Authorization": "Bearer tok-abcdef", "Accept": "application/json"}
    with serve(create_app(offline_factory(tmp_path / "cp.db"), settings)) as base:
        codes = [
            httpx.post(
                base + "/assistant",
                json={"message": "hi", "user_id": "a"},
                headers=auth,
                timeout=30,
            ).status_code
            for _ in range(3)
        ]
        limited = httpx.post(
            base + "/assistant", json={"message": "hi", "user_id": "a"}, headers=auth
        )
        other_user = httpx.post(
            base + "/assistant", json={"message": "hi", "user_id": "b"}, headers=auth, timeout=30
        )
    assert codes == [200, 200, 429]
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
    assert other_user.status_code == 200  # the orchestrator's other users are not throttled


def test_origins(tmp_path: Path) -> None:
    settings = CoachSettings(agent_allowed_origins="http://localhost:8000")
    body = {"message": "hi", "user_id": "u"}
    headers = {"Accept": "application/json"}
    with serve(create_app(offline_factory(tmp_path / "cp.db"), settings)) as base:
        evil = httpx.post(
            base + "/assistant", json=body, headers={**headers, "Origin": "https://evil.example"}
        )
        good = httpx.post(
            base + "/assistant",
            json=body,
            headers={**headers, "Origin": "http://localhost:8000"},
            timeout=30,
        )
        server_to_server = httpx.post(base + "/assistant", json=body, headers=headers, timeout=30)
        preflight = httpx.options(
            base + "/assistant",
            headers={"Origin": "http://localhost:8000", "Access-Control-Request-Method": "POST"},
        )
    assert evil.status_code == 403
    assert good.status_code == 200 and server_to_server.status_code == 200
    assert preflight.headers.get("access-control-allow-origin") == "http://localhost:8000"


def test_no_browser_origin_is_allowed_by_default(tmp_path: Path) -> None:
    with serve(create_app(offline_factory(tmp_path / "cp.db"), CoachSettings())) as base:
        reply = httpx.post(
            base + "/assistant",
            json={"message": "hi", "user_id": "u"},
            headers={"Origin": "http://localhost:8000"},
        )
    assert reply.status_code == 403
