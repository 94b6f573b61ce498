"""The admin page on the real Chainlit app (uvicorn on 127.0.0.1, real SQLite chat database):
the one access rule (admin sees, a demo user gets 403, anonymous 401), the audit section's
filters and counts, and one receipt's detail — receipts written straight into the chat DB."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from handoff_audit.builders import route_receipt, waiting_receipt
from handoff_audit.recorder import ReceiptStore, dispose_engines
from tests.chainlit_driver import chainlit_server, login

ADMIN, DEMO = ("alice", "alice-pass-1"), ("bob", "bob-pass-2")
THREAD_A, THREAD_B = "thread-aaaa-1111", "thread-bbbb-2222"


def _receipts() -> tuple[object, object, object]:
    evidence = dict(
        route_contract="coach.router/v1", sender="workout_advisor", recipient="nutrition_advisor",
        declared_routes=["workout_advisor", "nutrition_advisor"], goto="nutrition_advisor",
        control_before="workout_advisor", control_after="nutrition_advisor",
        required_context_keys=["history", "constraints"], context=["history", "constraints"],
        destination_node="nutrition_advisor",
    )
    healthy = route_receipt(operation_id="op-healthy-1", verifier="no_allergen", passed=True,
                            complete=True, **evidence)
    broken = route_receipt(operation_id="op-false-complete-2", verifier="no_allergen", passed=False,
                           complete=True, **evidence)
    wait = waiting_receipt(
        operation_id="op-wait-3", route_contract="coach.human/v1", sender="nutrition_advisor",
        recipient="human", declared_routes=["human"], goto="human", control_before="nutrition_advisor",
        control_after="human", required_context_keys=["prompt"], context=["prompt"],
        destination_node="human", owner="user:alice", reason="constraints",
        resume_token_id="rt-0123456789abcdef", deadline_utc=datetime.now(UTC) + timedelta(hours=1),
    )
    return healthy, broken, wait


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("admin")
    data_dir = work / "data"
    store = ReceiptStore(f"sqlite:///{data_dir / 'chainlit.db'}", secrets=[])
    healthy, broken, wait = _receipts()
    store.record(healthy, THREAD_A)
    store.record(broken, THREAD_A)
    store.record(wait, THREAD_B)
    dispose_engines()
    server = chainlit_server(data_dir, work, RELAIS_ADMINS="alice").start()
    login(server.url, *DEMO)  # the data layer (and its schema) is made on first use
    with sqlite3.connect(data_dir / "chainlit.db") as db:
        db.execute('INSERT INTO threads ("id", "createdAt", "name", "userIdentifier") VALUES (?, ?, ?, ?)',
                   (THREAD_A, datetime.now(UTC).isoformat(), "14:05 · Build me a meal plan <vegan>", "carol"))
    try:
        yield server.url
    finally:
        server.stop()


_TOKENS: dict[tuple[str, str], str] = {}


def _get(url: str, user: tuple[str, str] | None, base: str) -> httpx.Response:
    if user and user not in _TOKENS:
        _TOKENS[user] = login(base, *user)
    cookies = {"access_token": _TOKENS[user]} if user else {}
    return httpx.get(url, cookies=cookies, timeout=30, follow_redirects=False)


@pytest.mark.parametrize(
    "path", ["/admin", "/admin/audit", "/admin/audit/receipts/op-healthy-1", "/admin/nope"]
)
def test_anonymous_gets_401_and_a_demo_user_403(app: str, path: str) -> None:
    assert _get(app + path, None, app).status_code == 401
    assert _get(app + path, DEMO, app).status_code == 403


def test_admin_sees_receipts_per_thread_with_counts_and_detail(app: str) -> None:
    home = _get(app + "/admin", ADMIN, app)
    assert home.status_code == 307 and home.headers["location"] == "/admin/audit"

    page = _get(app + "/admin/audit", ADMIN, app)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    assert f'<code class="muted">{THREAD_A}</code>' in html and f"<code>{THREAD_B}</code>" in html
    # a thread known to the chat database reads as its title and its user (escaped), not its id alone
    assert '<span class="title">14:05 · Build me a meal plan &lt;vegan&gt;</span></a> · <span class="user">carol</span>' in html
    counts = html.split('id="verdict-counts"', 1)[1].split("</div>", 1)[0]
    assert 'HEALTHY</span><span class="n">1<' in counts
    assert 'FALSE_COMPLETE</span><span class="n">1<' in counts
    assert 'WAITING_ON_APPROVAL</span><span class="n">1<' in counts
    assert 'UNCERTAIN</span><span class="n">0<' in counts

    only_bad = _get(app + "/admin/audit?verdict=FALSE_COMPLETE", ADMIN, app).text
    assert "op-false-complete-2" in only_bad and "op-healthy-1" not in only_bad
    assert "op-wait-3" not in only_bad
    one_thread = _get(app + f"/admin/audit?thread={THREAD_B}", ADMIN, app).text
    assert "op-wait-3" in one_thread and "op-healthy-1" not in one_thread
    future = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    assert 'id="no-receipts"' in _get(app + f"/admin/audit?since={future}", ADMIN, app).text

    detail = _get(app + "/admin/audit/receipts/op-false-complete-2?attempt=1", ADMIN, app)
    assert detail.status_code == 200
    assert "FALSE_COMPLETE" in detail.text and "verifier &#x27;no_allergen&#x27; failed" in detail.text
    assert _get(app + "/admin/audit/receipts/op-unknown", ADMIN, app).status_code == 404
    assert _get(app + "/admin/nope", ADMIN, app).status_code == 404


@pytest.mark.parametrize("path", ["/admin", "/admin/audit", "/admin/analytics"])
def test_a_browser_logged_out_is_sent_to_the_login_page(app: str, path: str) -> None:
    """Issue 29: logged out, /admin showed raw JSON {"detail": "Invalid authentication token"}."""
    page = httpx.get(app + path, headers={"Accept": "text/html,application/xhtml+xml"}, timeout=30)
    assert page.status_code == 303 and page.headers["location"] == "/login"
    expired = httpx.get(app + path, headers={"Accept": "text/html"}, cookies={"access_token": "not-a-token"}, timeout=30)
    assert expired.status_code == 303 and expired.headers["location"] == "/login"


def test_the_page_script_learns_who_may_see_the_admin_link(app: str) -> None:
    assert httpx.get(app + "/relais/ui", timeout=30).status_code == 401
    assert _get(app + "/relais/ui", ADMIN, app).json()["admin"] is True
    assert _get(app + "/relais/ui", DEMO, app).json()["admin"] is False


def test_the_chat_app_is_unaffected(app: str) -> None:
    """The catch-all UI route still serves the app, and the chat login still works for bob."""
    assert httpx.get(app + "/login", timeout=30).status_code == 200
    assert login(app, *DEMO)


def test_access_rule_unit() -> None:
    from fastapi import HTTPException

    from chatbot.admin.access import check_admin, is_admin
    from chatbot.settings import ChatbotSettings

    settings = ChatbotSettings(relais_admins=" alice , carol ")

    class User:
        def __init__(self, identifier: str) -> None:
            self.identifier = identifier

    assert is_admin(User("alice"), settings) and is_admin(User("carol"), settings)
    assert not is_admin(User("bob"), settings) and not is_admin(None, settings)
    for user, status in ((None, 401), (User(""), 401), (User("bob"), 403), (User("ALICE"), 403)):
        with pytest.raises(HTTPException) as err:
            check_admin(user, settings)
        assert err.value.status_code == status
    assert check_admin(User("alice"), settings).identifier == "alice"
    assert ChatbotSettings().admins == frozenset()  # nobody is admin unless named


