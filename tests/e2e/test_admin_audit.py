"""Operators see handoff receipts on the admin page; end users don't (in a real browser).

alice (admin on the shared stack) hands a turn to the coach, sees no audit in the chat, then
opens /admin/audit: receipts per thread, verdict counts, one receipt's detail. bob gets 403,
nobody logged in 401. A demo app started with RELAIS_AUDIT_IN_CHAT=true shows one folded line
per handoff in the chat. Screenshots: test-artifacts/browser/16-*.png."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import Stack, ask, login, scroll_into_view, shot, start_app

pytestmark = pytest.mark.browser

COACH_QUESTION = "Build muscle, lose fat — suggest a workout plan"


def test_admin_audit_page(app_url: str, new_page: Callable[..., Any]) -> None:
    page = new_page()
    page.set_default_timeout(240_000)  # a coach turn on a loaded CI machine
    login(page, app_url, "alice")
    ask(page, COACH_QUESTION)
    page.wait_for_selector("text=Nothing to add")  # the coach's quick choices: it was handed over
    assert "Handoff audit" not in page.inner_text("body")  # off by default: end users see none
    assert "HEALTHY" not in page.inner_text("body")

    response = page.goto(app_url + "/admin/audit")
    assert response is not None and response.status == 200
    table = page.locator("#receipts")
    assert "external_agent" in table.inner_text() and "workout_advisor" in table.inner_text()
    counts = page.locator("#verdict-counts").inner_text()
    assert "HEALTHY" in counts and "WAITING_ON_APPROVAL" in counts
    shot(page, "16-audit-page")

    page.locator("#receipts a", has_text="detail").first.click()
    page.wait_for_selector("#receipt-detail")
    assert "Route" in page.inner_text("body") or "route" in page.inner_text("body")
    shot(page, "16-audit-receipt")

    page.goto(app_url + "/admin/audit?verdict=FALSE_COMPLETE")
    assert page.locator("#no-receipts").count() == 1  # an ordinary turn raises no alarm


def test_admin_page_refuses_others(app_url: str, new_page: Callable[..., Any]) -> None:
    bob = new_page()
    login(bob, app_url, "bob")
    response = bob.goto(app_url + "/admin/audit")
    assert response is not None and response.status == 403
    anonymous = new_page()  # a browser that is not logged in is sent to the login page, not shown JSON
    response = anonymous.goto(app_url + "/admin/audit")
    assert response is not None and anonymous.url.rstrip("/").endswith("/login"), anonymous.url
    assert httpx.get(app_url + "/admin/audit", headers={"Accept": "application/json"}).status_code == 401  # a script


def test_in_chat_audit_for_demos(stack: Stack, tmp_path: Path, new_page: Callable[..., Any]) -> None:
    demo = start_app(stack, tmp_path, RELAIS_AUDIT_IN_CHAT="true")  # the setting is the app's alone
    try:
        page = new_page()
        page.set_default_timeout(240_000)
        login(page, demo.url, "alice")
        ask(page, COACH_QUESTION)
        step = page.get_by_text("Handoff audit").last
        step.wait_for()
        step.click()  # folded by default: one click shows one line per handoff
        page.get_by_text("WAITING_ON_APPROVAL → human").last.wait_for()
        body = page.inner_text("body")
        assert "HEALTHY → external_agent" in body
        assert "| Boundary |" not in body and "Do nothing." not in body  # details stay folded
        scroll_into_view(page.get_by_text("WAITING_ON_APPROVAL → human").last)
        shot(page, "16-audit-in-chat")
    finally:
        demo.stop()
