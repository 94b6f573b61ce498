"""Security of a running deployment: the real app and coach service, "online" against a local fake
of Mistral's API, with every secret configured (API key, agent token, auth secret, passwords).

- Auth is on; a user cannot open, resume, rename, share, delete or read another user's thread,
  nor click buttons in another user's session (Chainlit's HTTP API and socket, two users).
- The coach service only takes requests bearing the shared token (and browser requests only
  from allowed origins); the chatbot sends the token, so the hand-off works.
- Message size and rate limits on the service answer 413/429, shown as clear messages.
- After a run that includes errors, no secret appears in either server's log, in the data dir
  (thread store, checkpoints, receipts) or in what the UI showed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from socketio.exceptions import ConnectionError as SocketRefused

from assistant.i18n import translate
from tests.chainlit_driver import list_threads
from tests.demo_index import cache_root_for, ingested_data_dir
from tests.resilience.fake_mistral import API_KEY, FakeMistral
from tests.resilience.harness import (
    USERS,
    Chat,
    Stack,
    coach_answered,
    get_thread,
    login_as,
    open_chat,
    settle_elements,
    thread_metadata,
)
from tests.servers import serve

pytestmark = pytest.mark.slow

TOKEN = "agent-token-7c1e9b2a5d3f48e6a0b4"
AUTH_SECRET = "auth-secret-5be0c94f1d7a4e2b9c3d8f6a0e1b7c25"
WRONG_PASSWORD = "wrong-pass-9d3e1f7a"
ALLOWED_ORIGIN = "http://app.example"
MAX_CHARS = 300
RATE_LIMIT = 6
HANDOFF = "Build muscle, lose fat — suggest a workout plan"


@pytest.fixture(scope="module")
def fake() -> Iterator[tuple[FakeMistral, str]]:
    mistral = FakeMistral()
    with serve(mistral.app()) as base_url:
        yield mistral, base_url


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, fake: tuple[FakeMistral, str]) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("security")
    env = {
        "MISTRAL_API_KEY": API_KEY, "MISTRAL_BASE_URL": f"{fake[1]}/v1", "EXTERNAL_AGENT_TOKEN": TOKEN,
        "CHAINLIT_AUTH_SECRET": AUTH_SECRET, "RELAIS_LOG_LEVEL": "DEBUG",
    }
    agent_env = {"AGENT_ALLOWED_ORIGINS": ALLOWED_ORIGIN, "AGENT_MAX_MESSAGE_CHARS": str(MAX_CHARS),
                 "AGENT_RATE_LIMIT_PER_MINUTE": str(RATE_LIMIT)}
    app = Stack(work, ingested_data_dir(work / "data", cache_root_for(tmp_path_factory)), env=env,
                agent_env=agent_env).start()
    yield app
    app.stop()


def _agent(stack: Stack) -> str:
    assert stack.agent is not None
    return stack.agent.url + "/assistant"


def _body(message: str, user: str = "direct-check", thread: str | None = None) -> dict[str, Any]:
    return {"message": message, "user_id": user, "conversation_history": [], "thread_id": thread or f"t-{user}"}


# --- auth and thread ownership --------------------------------------------------------------------
async def test_login_is_required(stack: Stack) -> None:
    async with httpx.AsyncClient(base_url=stack.url, timeout=10) as http:
        threads = await http.post("/project/threads", json={"pagination": {"first": 5}, "filter": {}})
        bad = await http.post("/login", data={"username": "alice", "password": WRONG_PASSWORD})
    assert threads.status_code == 401
    assert bad.status_code == 401 and "access_token" not in bad.cookies
    anonymous = Chat(stack.url, token="not-a-valid-token")
    with pytest.raises(SocketRefused):
        await anonymous.connect()
    await anonymous.close()


async def test_another_user_cannot_open_resume_or_read_a_thread(stack: Stack) -> None:
    base = stack.url
    alice = await open_chat(base, "alice")
    question = await alice.ask("How much does the base plan cost?")
    handoff = await alice.ask(HANDOFF)
    assert coach_answered(handoff), handoff.text
    thread_id = alice.thread_id
    assert thread_id
    alice_token = login_as(base, "alice")
    own = get_thread(base, alice_token, thread_id)
    assert own.status_code == 200 and "How much does the base plan cost?" in own.text  # the control

    bob_token = login_as(base, "bob")
    refused = (401, 403)
    element_id = next((e["id"] for e in await settle_elements(question) if e.get("id")), None)
    assert element_id, "the help-center answer has a source element"
    alice_user_id = own.json().get("userId")
    async with httpx.AsyncClient(base_url=base, cookies={"access_token": bob_token}, timeout=20) as http:
        assert (await http.get(f"/project/thread/{thread_id}")).status_code in refused
        assert (await http.get(f"/project/thread/{thread_id}/element/{element_id}")).status_code in refused
        assert (await http.get(f"/project/share/{thread_id}")).status_code == 404
        renamed = await http.put("/project/thread", json={"threadId": thread_id, "name": "mine now"})
        shared = await http.put("/project/thread/share", json={"threadId": thread_id, "isShared": True})
        deleted = await http.request("DELETE", "/project/thread", json={"threadId": thread_id})
        assert (renamed.status_code, shared.status_code, deleted.status_code) == (401, 401, 401)
        # clicking a quick choice in alice's live session
        clicked = await http.post("/project/action", json={"sessionId": alice.session_id, "action": handoff.actions[0]})
        assert clicked.status_code in refused
        listed = await http.post("/project/threads", json={"pagination": {"first": 50},
                                                             "filter": {"userId": alice_user_id}})
        assert listed.status_code == 200 and thread_id not in [t["id"] for t in listed.json()["data"]]
    async with httpx.AsyncClient(base_url=base, timeout=10) as anonymous:  # no cookie at all
        assert (await anonymous.get(f"/project/thread/{thread_id}")).status_code == 401

    intruder = Chat(base, bob_token, thread_id=thread_id)
    with pytest.raises(SocketRefused):
        await intruder.connect()  # resuming someone else's thread is refused at connect
    await intruder.close()
    await alice.close()

    # nothing bob tried changed alice's thread
    after = get_thread(base, alice_token, thread_id).json()
    assert after.get("name") != "mine now" and not thread_metadata(after).get("is_shared")
    assert thread_id in [t["id"] for t in await list_threads(base, alice_token)]


# --- the agent service's guards ---------------------------------------------------------------------
async def test_agent_requires_the_shared_token_and_the_chatbot_sends_it(stack: Stack) -> None:
    url = _agent(stack)
    good = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"}
    async with httpx.AsyncClient(timeout=60) as http:
        missing = await http.post(url, json=_body("hello"))
        wrong = await http.post(url, json=_body("hello"), headers={"Authorization": "Bearer not-the-token"})
        foreign = await http.post(url, json=_body("hello"), headers={**good, "Origin": "http://evil.example"})
        ok = await http.post(url, json=_body("Build muscle — suggest a workout plan"),
                             headers={**good, "Origin": ALLOWED_ORIGIN})
    assert missing.status_code == 401
    assert wrong.status_code == 401 and wrong.headers.get("www-authenticate", "").lower().startswith("bearer")
    assert TOKEN not in wrong.text
    assert foreign.status_code == 403
    assert ok.status_code == 200 and ok.json()["interrupt"], ok.text

    chat = await open_chat(stack.url, "bob")  # the chatbot relays with its bearer token
    turn = await chat.ask(HANDOFF)
    await chat.close()
    assert coach_answered(turn), turn.text


async def test_agent_size_and_rate_limits_answer_413_429_and_show_clear_messages(stack: Stack) -> None:
    url, auth = _agent(stack), {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"}
    async with httpx.AsyncClient(timeout=60) as http:
        too_long = await http.post(url, json=_body("x" * (MAX_CHARS + 1)), headers=auth)
        statuses = [await http.post(url, json=_body("Nothing to add", user="flood"), headers=auth)
                    for _ in range(RATE_LIMIT + 1)]
    assert too_long.status_code == 413 and str(MAX_CHARS) in too_long.json()["detail"]
    assert [r.status_code for r in statuses] == [200] * RATE_LIMIT + [429]
    assert int(statuses[-1].headers["retry-after"]) >= 1

    dave = await open_chat(stack.url, "dave")
    assert coach_answered(await dave.ask(HANDOFF))
    long_en = await dave.ask("Please also consider this about my schedule and my habits. " * 6)
    long_fr = await dave.ask("Merci de tenir compte aussi de mon emploi du temps et de mes habitudes. " * 5)
    await dave.close()
    assert translate("agent.too_long", "en") in long_en.text, long_en.text
    assert translate("agent.too_long", "fr") in long_fr.text, long_fr.text

    carol = await open_chat(stack.url, "carol")
    turns = [await carol.ask(HANDOFF)]
    for i in range(RATE_LIMIT):
        turns.append(await carol.ask(f"Nothing to add for now ({i})"))
    await carol.close()
    assert all(coach_answered(t) for t in turns[:RATE_LIMIT]), [t.text[:80] for t in turns]
    assert translate("agent.busy", "en") in turns[RATE_LIMIT].text, turns[RATE_LIMIT].text


# --- secrets ---------------------------------------------------------------------------------------------
def _secrets() -> dict[str, str]:
    return {"MISTRAL_API_KEY": API_KEY, "EXTERNAL_AGENT_TOKEN": TOKEN, "CHAINLIT_AUTH_SECRET": AUTH_SECRET,
            "a rejected password": WRONG_PASSWORD, **{f"password of {u}": p for u, p in USERS.items()}}


def _files_with(secret: bytes, root: Path) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            with contextlib.suppress(OSError):
                if secret in path.read_bytes():
                    found.append(str(path.relative_to(root)))
    return found


async def test_no_secret_in_logs_data_or_messages_after_a_run_with_errors(stack: Stack, fake: tuple[FakeMistral, str]) -> None:
    base, mistral = stack.url, fake[0]
    async with httpx.AsyncClient(timeout=10) as http:
        await http.post(base + "/login", data={"username": "bob", "password": WRONG_PASSWORD})
        await http.post(base + "/login", data={"username": "nobody", "password": WRONG_PASSWORD})
        await http.post(_agent(stack), json=_body("hi"), headers={"Authorization": f"Bearer {WRONG_PASSWORD}"})
    bob = await open_chat(base, "bob")
    shown = [await bob.ask("How much does the base plan cost? boom")]  # the provider fails on the NORMAL path
    shown.append(await bob.ask(HANDOFF))
    shown.append(await bob.ask("What should I eat? boom"))  # ... and inside the coach
    await bob.close()

    # the run really used the secrets and really failed, so the scan below means something
    assert {r.get("tools") is not None for r in mistral.requests} == {True, False}  # coach and orchestrator calls
    assert set(mistral.authorizations) == {f"Bearer {API_KEY}"}
    logs = stack.logs()
    assert "coach turn failed" in logs and " 401" in logs
    assert coach_answered(shown[1]) and "⚠️" in shown[2].text

    ui_text = "\n".join(turn.text for turn in shown)
    leaks = []
    for name, secret in _secrets().items():
        if secret in logs:
            leaks.append(f"{name} in a server log")
        if secret in ui_text:
            leaks.append(f"{name} in a message shown to the user")
        leaks += [f"{name} in data file {f}" for f in _files_with(secret.encode(), stack.data_dir)]
    assert not leaks, leaks
