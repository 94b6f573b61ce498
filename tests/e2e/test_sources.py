"""Sources belong to their answer (issue 19): each answer's chips open that answer's excerpts
under their own titles, nothing accumulates across answers, a "not found" shows no sources,
and the side panel never opens by itself (only a chip click opens it) — also when the thread is
shown again (page reload, opened from the sidebar, back and forward, a second tab), where Chainlit re-opens it on its own.
Screenshots: test-artifacts/browser/19-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.e2e.conftest import ask, login, shot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

PANEL = "#side-view-content"
ANSWERS = "[data-step-type='assistant_message']"


def panel_text(page) -> str:
    return page.evaluate(f"() => document.querySelector('{PANEL}')?.innerText || ''")


def panel_title(page) -> str:
    return page.evaluate("() => document.querySelector('#side-view-title')?.innerText || ''")


def wait_panel_closed(page) -> None:
    page.wait_for_function(f"() => !document.querySelector('{PANEL}')", timeout=10_000)


def assert_panel_stays_closed(page) -> None:
    """Closed now and still closed a moment later (Chainlit opens it as the thread's elements land)."""
    wait_panel_closed(page)
    page.wait_for_timeout(1500)
    assert not page.query_selector(PANEL), "the side panel opened by itself"


def wait_answers_back(page, count: int) -> None:
    page.wait_for_function(f"n => document.querySelectorAll(\"{ANSWERS}\").length >= n", arg=count, timeout=60_000)


def back_to_new_chat_then_forward(page, thread_id: str) -> None:
    """Back to the new chat (a chip's "#" link is a history entry too), then forward to the thread.

    Stock Chainlit's chat view, mounting on "/" while the session still holds the thread, pushes
    `/thread/<id>` itself; that push drops the forward entry, so Chromium may refuse the forward step
    ("No entry with passed id"). Either way the person ends on the thread, which is what is checked."""
    for _ in range(3):
        page.go_back()
        if "/thread/" not in page.url:
            break
    assert "/thread/" not in page.url, f"back never left the thread: {page.url}"
    try:
        page.go_forward()
    except PlaywrightError as error:
        if "No entry with passed id" not in error.message:
            raise
    page.wait_for_url(lambda url: f"/thread/{thread_id}" in url, timeout=30_000)


def open_chip(page, answer_index: int, name: str) -> None:
    page.locator(ANSWERS).nth(answer_index).locator("a.element-link", has_text=name).first.click()
    page.wait_for_selector(PANEL, timeout=15_000)


def test_sources_belong_to_their_answer(new_page, app_url: str) -> None:
    page = new_page()
    page.set_default_timeout(240_000)  # the shared app loads the encoder on its first question
    login(page, app_url)

    ask(page, "How much do full-time students pay each month?")
    first = page.locator(ANSWERS).last.inner_text()
    assert "$5" in first and "[1] Student discount" in first  # chips name the article by its title
    wait_panel_closed(page)  # the panel does not open by itself
    shot(page, "19-01-answer-panel-closed")
    first_index = page.locator(ANSWERS).count() - 1

    open_chip(page, first_index, "Student discount")
    assert "Student discount" in panel_title(page)
    assert "$5" in panel_text(page)
    shot(page, "19-02-first-chip-opens-its-excerpt")

    ask(page, "Until what time are the clubs open on Saturdays?")
    wait_panel_closed(page)  # closed again after the next answer, not stacked
    second_index = page.locator(ANSWERS).count() - 1
    second = page.locator(ANSWERS).nth(second_index).inner_text()
    assert "9:00 p.m." in second and "Gym hours and access" in second
    open_chip(page, second_index, "Gym hours and access")
    text = panel_text(page)
    assert "9:00 p.m." in text
    assert "$5/month" not in text  # no excerpt of the first answer under this title
    assert "Gym hours" in panel_title(page)
    shot(page, "19-03-second-chip-only-its-excerpt")

    ask(page, "What is the capital of Australia?")
    wait_panel_closed(page)
    third = page.locator(ANSWERS).last
    assert "couldn't find" in third.inner_text()
    assert third.locator("a.element-link").count() == 0  # not found: no sources
    shot(page, "19-04-not-found-no-sources")

    open_chip(page, first_index, "Student discount")  # the first answer's chip still opens its own
    assert "$5" in panel_text(page) and "9:00 p.m." not in panel_text(page)
    shot(page, "19-05-first-chip-again")

    # The thread shown again: same answers, panel closed, each chip still opens only its own excerpt.
    answers = page.locator(ANSWERS).count()
    thread_id = page.url.split("/thread/")[1].split("#")[0]  # a chip's link adds a "#"
    page.reload()
    wait_answers_back(page, answers)
    assert_panel_stays_closed(page)
    shot(page, "19-06-after-reload-panel-closed")
    open_chip(page, second_index, "Gym hours and access")
    assert "9:00 p.m." in panel_text(page) and "$5/month" not in panel_text(page)
    assert "Gym hours" in panel_title(page)
    shot(page, "19-07-after-reload-chip")

    page.goto(app_url + "/")  # a new chat, then the thread from the sidebar
    page.wait_for_selector("#chat-input")
    page.locator(f"a[href='/thread/{thread_id}']").first.click()
    wait_answers_back(page, answers)
    assert_panel_stays_closed(page)
    ask(page, "How long can I freeze my membership?")  # a new answer in the reopened thread
    assert_panel_stays_closed(page)
    open_chip(page, page.locator(ANSWERS).count() - 1, "Freeze your membership")
    assert "$5/month" not in panel_text(page) and "9:00 p.m." not in panel_text(page)
    shot(page, "19-08-sidebar-thread-new-answer-chip")

    back_to_new_chat_then_forward(page, thread_id)
    wait_answers_back(page, answers + 1)
    assert_panel_stays_closed(page)
    shot(page, "19-09-back-forward-panel-closed")

    other = page.context.new_page()  # the same thread in a second tab
    other.set_default_timeout(240_000)
    other.goto(f"{app_url}/thread/{thread_id}")
    wait_answers_back(other, answers + 1)
    assert_panel_stays_closed(other)
    open_chip(other, second_index, "Gym hours and access")
    open_chip(other, second_index, "Gym hours and access")  # a double click on a chip: still its own excerpt, once
    assert "9:00 p.m." in panel_text(other) and "$5/month" not in panel_text(other)
    assert panel_text(other).count("Gym hours and access —") == 1
    shot(other, "19-10-second-tab-chip")
