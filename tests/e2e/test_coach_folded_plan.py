"""Issue 15 in Chromium: a quick choice after a plan is answered with what changed first; the
updated plan follows folded under "Full plan (updated)", opens on a click, and is still folded
after a reload (the step is stored). Path `make run` shows: Assistant → hand-off to the coach
service over SSE. Screenshots: test-artifacts/browser/15-plan-folded.png, 15-plan-expanded.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import Stack, ask, login, scroll_into_view, shot, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

WORKOUT = "Build muscle, lose fat — suggest a workout plan"
TRIGGER = "[id='step-📋 Full plan (updated)']"
SECTION = f"[data-step-type='tool']:has({TRIGGER})"
PLAN_LINE = "How to progress"  # a heading of the plan's body, never in the summary


def scroll_to_bottom(page: Any) -> None:
    scroll_into_view(page.locator("[data-step-type='assistant_message']").last)
    page.wait_for_timeout(300)


def test_a_quick_choice_answer_shows_what_changed_with_the_plan_folded(page: Any, stack: Stack) -> None:
    page.set_default_timeout(180_000)  # the first hand-off loads the encoder on a shared machine
    login(page, stack.url)
    ask(page, WORKOUT)
    page.locator("button:has-text('Injury')").last.wait_for()
    assert page.get_by_text(PLAN_LINE, exact=False).first.is_visible()  # the first plan is open
    assert page.locator(SECTION).count() == 0

    page.locator("button:has-text('Injury')").last.click()  # the coach asks which area: one question, no plan
    page.locator("button:has-text('Knee')").last.wait_for()
    assert page.locator(SECTION).count() == 0
    answers = page.locator("[data-step-type='assistant_message']").count()
    page.locator("button:has-text('Knee')").last.click()  # now something changed: the plan follows, folded
    page.wait_for_function(
        "n => document.querySelectorAll(\"[data-step-type='assistant_message']\").length > n + 1", arg=answers
    )
    page.locator(SECTION).first.wait_for()
    wait_idle(page)

    answer = page.locator("[data-step-type='assistant_message']", has_text="What changed").last
    assert answer.is_visible()
    assert "knee" in answer.inner_text().lower()  # the detail the person chose
    section = page.locator(SECTION).last
    assert section.count() == 1
    title = section.locator(TRIGGER).inner_text().strip()
    assert title.startswith("📋 Full plan (updated)"), title  # its title, not Chainlit's "Used …"
    assert section.locator("img[alt='Avatar for Agent']").count() == 1  # the agent's section (the hand-off's author)
    plan_lines = section.get_by_text(PLAN_LINE, exact=False)
    assert plan_lines.count() == 0 or not plan_lines.first.is_visible()  # folded
    scroll_to_bottom(page)
    shot(page, "15-plan-folded")

    section.locator(TRIGGER).click()
    section.get_by_text(PLAN_LINE, exact=False).first.wait_for(state="visible", timeout=15_000)
    scroll_into_view(section)
    shot(page, "15-plan-expanded")

    page.reload()  # the stored thread: the plan is still folded, the summary still first
    page.locator(SECTION).last.wait_for()
    page.locator("[data-step-type='assistant_message']", has_text="What changed").last.wait_for()
    reloaded = page.locator(SECTION).last
    lines = reloaded.get_by_text(PLAN_LINE, exact=False)
    assert lines.count() == 0 or not lines.first.is_visible()
    reloaded.locator(TRIGGER).click()
    reloaded.get_by_text(PLAN_LINE, exact=False).first.wait_for(state="visible", timeout=15_000)
