"""The real Chainlit app over HTTP + socket.io, with the real coach service as external agent.

A NORMAL question is answered from the KB with sources; an action request hands the thread to
the coach (ALTER), whose interrupt shows quick-choice buttons; the mode survives a server
restart and a resume from the thread list; another user cannot open the thread.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import httpx
import pytest
import socketio

from tests.chainlit_driver import (
    ChatSession,
    list_threads,
    login,
    relais_env,
)
from tests.conftest import REPO_ROOT, free_port
from tests.resilience.harness import get_thread

pytestmark = pytest.mark.slow


@pytest.fixture()
def stack(demo_app: dict) -> dict:
    """The shared app (tests/chatbot/conftest.py): each test opens threads of its own."""
    return demo_app


def test_serves_and_requires_login(stack: dict) -> None:
    base = stack["app"].url
    assert httpx.get(base + "/", timeout=10).status_code == 200
    bad = httpx.post(base + "/login", data={"username": "alice", "password": "wrong"}, timeout=10)
    assert bad.status_code == 401
    assert login(base, "alice", "alice-pass-1")


async def test_normal_question_answered_with_sources(stack: dict) -> None:
    base = stack["app"].url
    chat = await ChatSession(base, login(base, "alice", "alice-pass-1")).connect()
    try:
        turn = await chat.ask("How much does the base plan cost?")
        assert "$10" in turn.text
        assert "[1] Plans and pricing" in turn.text  # the sources line names the articles by title
        for _ in range(20):  # element events may trail the end of the task by a moment
            if turn.elements:
                break
            await asyncio.sleep(0.1)
        assert any("Plans and pricing" in e.get("name", "") for e in turn.elements), "sources are elements"
        assert "offline" not in turn.text  # the engine is the answer's metadata, not a line of it
    finally:
        await chat.close()


async def test_sources_are_kept_with_the_thread_and_served_to_their_owner_only(stack: dict) -> None:
    base = stack["app"].url
    alice = login(base, "alice", "alice-pass-1")
    chat = await ChatSession(base, alice).connect()
    try:
        await chat.ask("How much does the base plan cost?")
        thread_id = chat.thread_id
    finally:
        await chat.close()
    elements: list[dict] = []
    for _ in range(50):  # elements are written by a background task of the turn
        thread = get_thread(base, alice, thread_id).json()
        elements = [e for e in thread.get("elements") or [] if e.get("url")]
        if elements:
            break
        await asyncio.sleep(0.2)
    source = next(e for e in elements if "Plans and pricing" in e.get("name", ""))
    assert source["url"].startswith("/relais/blobs/")

    mine = httpx.get(base + source["url"], cookies={"access_token": alice}, timeout=10)
    assert mine.status_code == 200 and "$10" in mine.text  # the excerpt shown beside the answer
    assert mine.headers["content-type"].startswith("text/plain")
    bob = login(base, "bob", "bob-pass-2")
    assert httpx.get(base + source["url"], cookies={"access_token": bob}, timeout=10).status_code == 404
    assert httpx.get(base + source["url"], timeout=10).status_code == 401


async def test_alter_handoff_persists_across_restart_and_resume(stack: dict) -> None:
    base = stack["app"].url
    token = login(base, "alice", "alice-pass-1")
    chat = await ChatSession(base, token).connect()
    try:
        first = await chat.ask("Build muscle, lose fat — suggest a workout plan")
        assert any("handing you over to the agent" in t.lower() for t in first.texts)  # the hand-off is visible
        assert any(s.get("type") == "tool" for s in first.steps), "the coach's tool call is a step"
        assert {a["label"] for a in first.actions} >= {"Vegetarian", "Injury"}
        thread_id = chat.thread_id
        assert thread_id
        second = await chat.ask("What should I eat to support this workout plan?")
        assert "kcal" in second.text.lower() or "protein" in second.text.lower()
    finally:
        await chat.close()

    app = stack["app"]
    app.stop()
    app.start()  # same port, same SQLite files
    token = login(base, "alice", "alice-pass-1")
    threads = await list_threads(base, token)
    assert thread_id in [t["id"] for t in threads]
    resumed = await ChatSession(base, token, thread_id=thread_id).connect()
    try:
        assert resumed.resumed is not None
        third = await resumed.ask("I'm vegetarian, adjust the meal suggestion")
        text = third.text.lower()
        assert "chicken" not in text and "beef" not in text and "fish" not in text
        assert "tofu" in text or "lentil" in text or "paneer" in text
    finally:
        await resumed.close()


async def test_another_user_cannot_open_the_thread(stack: dict) -> None:
    base = stack["app"].url
    alice = await ChatSession(base, login(base, "alice", "alice-pass-1")).connect()
    await alice.ask("Can I freeze my membership?")
    thread_id = alice.thread_id
    await alice.close()
    bob_token = login(base, "bob", "bob-pass-2")
    assert thread_id not in [t["id"] for t in await list_threads(base, bob_token)]
    intruder = ChatSession(base, bob_token, thread_id=thread_id)
    refusals: list[Any] = []
    intruder.sio.on("connect_error", lambda data: refusals.append(data))
    with pytest.raises(socketio.exceptions.ConnectionError, match="failed to connect"):
        await intruder.connect()
    await intruder.close()
    assert refusals == [{"message": "Connection refused by server"}]  # refused at connect, not a crash
    assert intruder.resumed is None and not intruder.sio.connected
    own = await ChatSession(base, bob_token).connect()  # the same login opens a thread of his own:
    assert own.sio.connected  # the refusal was about alice's thread, not bob's token
    await own.close()


def test_relais_ask_uses_the_running_app(stack: dict) -> None:
    """`relais ask` posts to the warm app (bearer token from the data folder), and without an
    app on the port answers in its own process; the endpoint refuses a missing token."""
    base = stack["app"].url
    assert httpx.post(base + "/relais/api/ask", json={"question": "How much is the base plan?"}, timeout=10).status_code == 401
    token = (stack["data_dir"] / "api_token").read_text().strip()
    bad = httpx.post(base + "/relais/api/ask", json={"nope": 1}, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert bad.status_code == 400

    def ask(port: int) -> dict:
        env = relais_env(stack["data_dir"], APP_PORT=str(port))
        done = subprocess.run([sys.executable, "-m", "cli.app", "ask", "How much does the base plan cost?", "--json"],
                              env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return __import__("json").loads(done.stdout)

    warm = ask(stack["port"])
    assert warm["served_by"] == "app" and "$10" in warm["answer"]
    assert warm["sources"][0]["source"] == "plans-and-pricing.md"
    cold = ask(free_port())  # nothing listens there
    assert cold["served_by"] == "cli" and cold["answer"] == warm["answer"]
