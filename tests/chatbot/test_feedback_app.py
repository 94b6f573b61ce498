"""Feedback round trip over the real Chainlit app: a question answered, a 👎 with a comment set
over `PUT /feedback` as the browser does, the thread resumed with its thumb, another user
unable to rate or erase it, and the export showing the rated turn. Then the admin page's
analytics section built from those turns, behind the one admin access rule."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from tests.chainlit_driver import chainlit_server, relais_env
from tests.conftest import REPO_ROOT
from tests.demo_index import cache_root_for, ingested_data_dir
from tests.resilience.harness import USERS_ENV, get_thread, login_as, open_chat

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    work = tmp_path_factory.mktemp("feedback-app")
    data_dir = ingested_data_dir(work / "data", cache_root_for(tmp_path_factory))
    server = chainlit_server(data_dir, work, RELAIS_USERS=USERS_ENV, RELAIS_ADMINS="carol").start()
    try:
        yield {"url": server.url, "data_dir": data_dir}
    finally:
        server.stop()


def _put(base: str, token: str, feedback: dict, session_id: str) -> httpx.Response:
    return httpx.put(base + "/feedback", json={"feedback": feedback, "sessionId": session_id},
                     cookies={"access_token": token}, timeout=20)


async def test_thumb_kept_shown_on_resume_and_exported(app: dict) -> None:
    base = app["url"]
    chat = await open_chat(base, "alice")
    try:
        turn = await chat.ask("How much does the base plan cost?")
        answer_id = next(m["id"] for m in turn.messages.values() if m.get("type") == "assistant_message" and "$10" in m.get("output", ""))
        thread_id, session_id = chat.thread_id, chat.session_id
        alice = chat.token
        # first click (no id yet), then the comment — the browser resends the same feedback
        first = _put(base, alice, {"forId": answer_id, "threadId": thread_id, "value": 1}, session_id)
        assert first.status_code == 200, first.text
        feedback_id = first.json()["feedbackId"]
        second = _put(base, alice, {"forId": answer_id, "threadId": thread_id, "value": 0, "comment": "price is outdated"}, session_id)
        assert second.json()["feedbackId"] == feedback_id
    finally:
        await chat.close()

    bob = login_as(base, "bob")  # someone else can neither rate nor erase alice's thumb
    assert _put(base, bob, {"forId": answer_id, "threadId": thread_id, "value": 1}, "x").status_code == 404
    erase = httpx.request("DELETE", base + "/feedback", json={"feedbackId": feedback_id}, cookies={"access_token": bob}, timeout=20)
    assert erase.status_code == 404
    assert get_thread(base, bob, thread_id).status_code in (401, 403, 404)

    resumed = await open_chat(base, "alice", thread_id=thread_id)  # the sidebar's resume
    try:
        steps = {s["id"]: s for s in resumed.resumed["steps"]}
    finally:
        await resumed.close()
    assert steps[answer_id]["feedback"]["value"] == 0
    assert steps[answer_id]["feedback"]["comment"] == "price is outdated"
    assert steps[answer_id]["feedback"]["id"] == feedback_id
    assert sum(1 for s in resumed.resumed["steps"] if s["id"] == answer_id) == 1

    export = subprocess.run([sys.executable, "-m", "cli.app", "feedback", "export"], env=relais_env(app["data_dir"]),
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=True)
    rows = [json.loads(line) for line in export.stdout.splitlines()]
    row = next(r for r in rows if r["message_id"] == answer_id)
    assert (row["rating"], row["comment"], row["mode"]) == ("down", "price is outdated", "help center")
    assert row["question"] == "How much does the base plan cost?"
    assert "$10" in row["answer"] and "offline" in row["engine"]
    assert any(s["source"] == "plans-and-pricing.md" for s in row["sources"])


async def test_analytics_section_shows_the_gap_to_admins_only(app: dict) -> None:
    base = app["url"]
    chat = await open_chat(base, "dave")
    try:
        turn = await chat.ask("What is the capital of Australia?")  # not in the demo KB: "not found"
        answer_id = next(m["id"] for m in turn.messages.values() if m.get("type") == "assistant_message")
        assert _put(base, chat.token, {"forId": answer_id, "threadId": chat.thread_id, "value": 0}, chat.session_id).status_code == 200
        await chat.ask("How much does the base plan cost?")
    finally:
        await chat.close()

    url = base + "/admin/analytics"
    assert httpx.get(url, timeout=30, follow_redirects=False).status_code == 401
    assert httpx.get(url, cookies={"access_token": login_as(base, "bob")}, timeout=30).status_code == 403
    page = httpx.get(url, cookies={"access_token": login_as(base, "carol")}, timeout=60)
    assert page.status_code == 200, page.text[:500]
    html = page.text
    assert 'href="/admin/analytics"' in html and 'href="/admin/audit"' in html  # one page, both sections
    gaps = html.split('data-testid="analytics-gaps"', 1)[1].split("</table>", 1)[0]
    assert "What is the capital of Australia?" in gaps
    articles = html.split('data-testid="analytics-articles"', 1)[1].split("</table>", 1)[0]
    assert "plans-and-pricing.md" in articles
    assert "dave" not in html.split("<main>", 1)[1]  # aggregates only: no user names
