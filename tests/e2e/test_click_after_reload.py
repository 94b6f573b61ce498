"""Stress in Chromium: a quick choice shown again after a reload or a socket reconnect is never
dead (issue 24). Cycles of {reload → click, a reload right before the restore lands → click as
soon as the buttons are back, websocket closed → click at once, click → websocket closed while the
answer streams}, on the hand-off path (Assistant →
coach service) and on the in-process Coach profile (whose thread reconnects to switch profile).

Every click must resume the coach exactly once: the counter is the coach's own checkpoint (the
person's messages it holds: one more per resume) and the echoed choice on the page. A cycle that
fails is recorded and the next one goes on (a reload brings the prompt back), so one run says how
many of its cycles fail. Screenshots: test-artifacts/browser/24-*.png
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.coach.test_service import saved_state
from tests.e2e.conftest import Stack, ask, login, shot, switch_profile
from tests.e2e.test_hitl_coach import newest_thread

pytestmark = [pytest.mark.browser, pytest.mark.timeout(1200)]

WORKOUT = "Build muscle, lose fat — suggest a workout plan"
# a message's quick choices (public/relais.css styles the same): the coach's choices vary per prompt
CHOICE = "button[id]:not(#submit-feedback)"
GROUPS = "[data-step-type] .-ml-1\\.5.flex.flex-wrap:has(> button[id]:not(#submit-feedback))"
CHOICE_BUTTONS = f"{GROUPS} > {CHOICE}"
CLICK_TIMEOUT_MS = 45_000  # one coach answer on a loaded 2-core machine; a lost click fails here
SOCKETS_JS = """
(() => {
  const Native = window.WebSocket;
  window.__relaisSockets = [];
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    window.__relaisSockets.push(ws);
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})();
"""
CLOSE_SOCKETS_JS = "() => { for (const ws of window.__relaisSockets) if (ws.readyState <= 1) ws.close(); }"


@dataclass
class Tally:
    """What the cycles did: clicks resumed once, failures (with what the person saw)."""

    resumed: int = 0
    failures: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)

    def failure(self, text: str) -> None:
        print(f"\nissue-24 stress: FAILED {text}", flush=True)  # said at once: a run cut short still tells
        self.failures.append(text)

    def summary(self) -> str:
        return (f"{self.resumed} clicks resumed once, {len(self.failures)} failed cycles, "
                f"{len(self.server_errors)} /project/action answers >= 500")


def humans(stack: Stack, thread_id: str) -> int:
    return len(saved_state(stack.data_dir / "checkpoints.db", thread_id)["humans"])


def echoed(page: Any, label: str) -> int:
    return page.locator("[data-step-type='user_message']", has_text=label).count()


def watch(page: Any, tally: Tally) -> Any:
    page.set_default_timeout(180_000)  # the first hand-off loads the encoder on a shared 2-core machine
    page.on("response", lambda r: tally.server_errors.append(f"{r.status} {r.url}")
            if "/project/action" in r.url and r.status >= 500 else None)
    return page


def groups(page: Any) -> int:
    """How many prompts show quick choices (one live prompt: one group)."""
    return page.locator(GROUPS).count()


def click_and_count(page: Any, stack: Stack, thread_id: str, pick: int, cell: str, tally: Tally,
                    before_click: Callable[[], None] | None = None,
                    after_click: Callable[[], None] | None = None) -> None:
    """Buttons back (what a person sees) → one click → the coach answers once, below the whole
    history, with one next prompt; or a failure noted."""
    deadline = time.monotonic() + CLICK_TIMEOUT_MS / 1000
    buttons = page.locator(GROUPS).last.locator(CHOICE)
    while True:  # a reconnect may replace the thread's messages between the wait and the count: wait again
        try:
            page.locator(CHOICE_BUTTONS).first.wait_for(timeout=max(1_000, (deadline - time.monotonic()) * 1000))
            shown = buttons.count()
        except PlaywrightTimeout:
            shown = 0
        if shown:
            break
        if time.monotonic() >= deadline:
            tally.failure(f"{cell}: the prompt's buttons did not come back within {CLICK_TIMEOUT_MS} ms")
            shot(page, f"24-{cell}-no-buttons")
            return
        page.wait_for_timeout(200)
    button = buttons.nth(pick % shown)
    label = button.inner_text().strip()
    resumes = humans(stack, thread_id)
    users = page.locator("[data-step-type='user_message']").count()
    answers = page.locator("[data-step-type='assistant_message']").count()
    if before_click:
        before_click()
    button.click()
    clicked_at = time.monotonic()
    if after_click:
        after_click()
    deadline = clicked_at + CLICK_TIMEOUT_MS / 1000
    while time.monotonic() < deadline and humans(stack, thread_id) == resumes:
        page.wait_for_timeout(200)
    try:  # what the person sees: their choice echoed, the coach's answer and its next prompt, alone
        page.wait_for_function(
            "([sel, u, a]) => document.querySelectorAll(\"[data-step-type='user_message']\").length > u"
            " && document.querySelectorAll(\"[data-step-type='assistant_message']\").length > a"
            " && document.querySelectorAll(sel).length === 1", arg=[GROUPS, users, answers], timeout=CLICK_TIMEOUT_MS)
    except PlaywrightTimeout:
        print(f"\nissue-24 stress: {cell}: no echo, answer or single next prompt on the page", flush=True)
    page.wait_for_timeout(500)  # a second resume, if any, would land now
    got = humans(stack, thread_id) - resumes
    sets = groups(page)
    note = page.locator("#relais-click-note").count()
    history = page.locator("[data-step-type='user_message']", has_text=WORKOUT).count()
    if got == 1 and sets == 1 and not note and history:
        tally.resumed += 1
        print(f"\nissue-24 stress: ok {cell} ({label}) in {time.monotonic() - clicked_at:.1f} s", flush=True)
        return
    tally.failure(f"{cell} ({label}): the click resumed the coach {got} times (want 1); {sets} prompts with "
                  f"buttons on the page (want 1: the answered prompt's go){'; the not-delivered note' if note else ''}"
                  f"{'' if history else '; the history is gone from the page'}")
    shot(page, f"24-{cell}-failed")


def drop_socket_mid_answer(page: Any) -> Callable[[], None]:
    """Close the page's socket a moment after a click, while the answer streams (the browser
    reconnects at once, and Chainlit shows the thread again over the new socket)."""
    return lambda: (page.wait_for_timeout(150), page.evaluate(CLOSE_SOCKETS_JS))


def cycles(page: Any, stack: Stack, thread_id: str, prefix: str, tally: Tally, rounds: int) -> None:
    """`rounds` × {reload → click; reload, reload again as the thread shows, click; socket closed →
    click; click → socket closed while the answer streams}."""
    for n in range(rounds):
        page.reload()
        click_and_count(page, stack, thread_id, n, f"{prefix}-reload-{n}", tally)
        page.reload()
        page.locator("[data-step-type='assistant_message']").first.wait_for()  # the thread is back…
        page.reload()  # …and reloaded before its buttons land
        click_and_count(page, stack, thread_id, n + 1, f"{prefix}-early-{n}", tally)
        click_and_count(page, stack, thread_id, n + 2, f"{prefix}-reconnect-{n}", tally,
                        before_click=lambda: page.evaluate(CLOSE_SOCKETS_JS))
        click_and_count(page, stack, thread_id, n + 3, f"{prefix}-midturn-{n}", tally,
                        after_click=drop_socket_mid_answer(page))


def overlaps(a: dict[str, float] | None, b: dict[str, float] | None) -> bool:
    """Whether two on-screen boxes (Playwright's bounding_box) share any pixel."""
    if not a or not b:
        return False
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def new_context_page(new_page: Callable[..., Any], tally: Tally) -> Any:
    page = new_page()
    page.context.add_init_script(SOCKETS_JS)
    return watch(page, tally)


def test_clicks_after_reload_and_reconnect_resume_once(new_page: Callable[..., Any], stack: Stack) -> None:
    tally = Tally()
    started = time.monotonic()
    page = new_context_page(new_page, tally)
    login(page, stack.url)
    ask(page, WORKOUT)  # the hand-off: the coach service waits on its first prompt
    page.locator(CHOICE_BUTTONS).last.wait_for()
    thread_id = newest_thread(page, stack.url)
    page.goto(f"{stack.url}/thread/{thread_id}")
    cycles(page, stack, thread_id, "handoff", tally, rounds=4)
    shot(page, "24-handoff-after-cycles")

    coach = new_context_page(new_page, tally)
    login(coach, stack.url)
    switch_profile(coach, "Coach")
    coach.wait_for_timeout(1000)
    ask(coach, WORKOUT)
    coach.locator(CHOICE_BUTTONS).last.wait_for()
    coach_thread = newest_thread(coach, stack.url)
    coach.goto(f"{stack.url}/thread/{coach_thread}")
    cycles(coach, stack, coach_thread, "coach", tally, rounds=3)  # 16 + 12 = 28 clicks in all
    shot(coach, "24-coach-after-cycles")
    print(f"\nissue-24 stress: {tally.summary()} in {time.monotonic() - started:.0f} s")
    assert not tally.failures and not tally.server_errors, tally.summary() + "\n" + "\n".join(
        tally.failures + tally.server_errors)


def test_a_click_that_cannot_be_delivered_says_so_and_the_prompt_stays(new_page: Callable[..., Any],
                                                                        stack: Stack) -> None:
    """A click whose session never connects (simulated: the request names an unknown session) is
    answered 409 after the bounded wait; the page says so once, in the localized note (no toast),
    without covering the buttons; nothing resumed, and the same button works when clicked again."""
    tally = Tally()
    page = new_context_page(lambda: new_page(locale="fr-FR"), tally)
    login(page, stack.url)
    ask(page, WORKOUT)
    page.locator(CHOICE_BUTTONS).last.wait_for()
    thread_id = newest_thread(page, stack.url)
    resumes = humans(stack, thread_id)

    def dead_session(route: Any) -> None:
        body = json.loads(route.request.post_data or "{}")
        route.continue_(post_data=json.dumps({**body, "sessionId": str(uuid.uuid4())}))

    page.route("**/project/action", dead_session)
    page.locator(CHOICE_BUTTONS).last.click()
    note = page.locator("#relais-click-note")
    note.wait_for(timeout=60_000)  # after RELAIS_ACTION_WAIT_S
    assert "n'a pas pu être transmis" in note.inner_text(), note.inner_text()
    shot(page, "24-click-not-delivered-fr")
    assert not overlaps(note.bounding_box(), page.locator(CHOICE_BUTTONS).last.bounding_box()), \
        "the note covers the button it asks the person to click again"
    assert page.locator("[data-sonner-toast]:visible").count() == 0, "the refusal is said twice (a toast too)"
    note.locator("button").click()  # read, closed, as a person would before clicking again
    note.wait_for(state="detached", timeout=5_000)
    assert humans(stack, thread_id) == resumes, "an undelivered click resumed nothing"
    assert not tally.server_errors, tally.server_errors
    page.unroute("**/project/action")
    click_and_count(page, stack, thread_id, -1, "undelivered-then-again", tally)
    assert tally.resumed == 1 and not tally.failures, tally.summary() + "\n" + "\n".join(tally.failures)
