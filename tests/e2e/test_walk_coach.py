"""Issue 29, Coach, in Chromium on the shared app (Coach profile, in process): the quick choices
are in view after an answer and after the thread is reopened; "Injury" / "Blessure" ask one
question with the likely areas as choices (no plan), "👍" is understood; "Des repas pour la
semaine" is answered with seven days of meals.
Screenshots: test-artifacts/browser/29-coach-*.png.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.conftest import Stack, ask, login, scroll_into_view, shot, switch_profile, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]


def coach_profile(page: Any) -> None:
    switch_profile(page, "Coach")
    page.wait_for_selector("#chat-input")
    page.wait_for_timeout(1000)


def button(page: Any, label: str) -> Any:
    return page.get_by_role("button", name=label, exact=True)


def in_view(page: Any, label: str) -> None:
    """The quick choice is fully visible above the message box, without any scrolling by the person."""
    target = button(page, label).last
    target.wait_for()
    page.wait_for_timeout(3000)  # the page script keeps them in view while the answer settles
    box, composer = target.bounding_box(), page.locator("#chat-input").bounding_box()
    if not (box and composer and 0 < box["y"] and box["y"] + box["height"] <= composer["y"]):
        shot(page, "29-coach-debug-not-in-view")
        raise AssertionError(f"{label!r} not in view: {box} above the message box {composer}")


def click(page: Any, label: str) -> None:
    answers = page.locator("[data-step-type='assistant_message']").count()
    button(page, label).last.click()
    page.wait_for_function("n => document.querySelectorAll(\"[data-step-type='assistant_message']\").length > n",
                           arg=answers, timeout=120_000)
    wait_idle(page)


def thread_url(page: Any) -> str:
    page.wait_for_function("() => location.pathname.startsWith('/thread/')", timeout=30_000)
    return page.url


def test_quick_choices_follow_ups_and_a_reopened_thread(page: Any, stack: Stack) -> None:
    page.set_default_timeout(180_000)
    login(page, stack.url)
    coach_profile(page)
    ask(page, "Build me a 3-day workout plan to gain muscle")
    in_view(page, "Injury")
    shot(page, "29-coach-01-choices-in-view")
    plans = page.get_by_text("Your training plan").count()

    click(page, "Injury")
    last = "\n".join(page.locator("[data-step-type='assistant_message']").all_inner_texts()[-2:])
    assert "Which area" in last and "Nothing changed" not in last  # the question, then its choices
    assert page.get_by_text("Your training plan").count() == plans  # no plan for an unnamed injury
    in_view(page, "Knee")
    shot(page, "29-coach-02-injury-asks-which-area")

    click(page, "Knee")
    assert any("What changed" in t for t in page.locator("[data-step-type='assistant_message']").all_inner_texts()[-3:])
    ask(page, "👍")
    answers = page.locator("[data-step-type='assistant_message']").all_inner_texts()
    assert any("Great" in text for text in answers[-2:])
    assert not any("outside what I can help" in text for text in answers[-2:])
    in_view(page, "Meal plan")
    shot(page, "29-coach-03-thumbs-up")

    url = thread_url(page)
    page.goto(stack.url + "/")
    page.wait_for_selector("#chat-input")
    page.goto(url)  # reopened: the pending question's buttons come back, in view
    in_view(page, "Meal plan")
    shot(page, "29-coach-04-reopened-in-view")


def test_fr_blessure_asks_which_area(new_page: Callable[..., Any], stack: Stack) -> None:
    page = new_page(locale="fr-FR")
    page.set_default_timeout(180_000)
    login(page, stack.url)
    coach_profile(page)
    ask(page, "Propose-moi un programme de musculation sur 3 jours")
    in_view(page, "Blessure")
    click(page, "Blessure")
    last = "\n".join(page.locator("[data-step-type='assistant_message']").all_inner_texts()[-2:])
    assert "Quelle zone" in last and "Rien ne change" not in last
    in_view(page, "Genou")
    shot(page, "29-coach-05-fr-blessure")



def test_fr_meals_for_the_week_are_a_week(new_page: Callable[..., Any], stack: Stack) -> None:
    page = new_page(locale="fr-FR")
    page.set_default_timeout(180_000)
    login(page, stack.url)
    coach_profile(page)
    ask(page, "Des repas pour la semaine")  # a week of meals is a week, not one day
    week = page.locator("[data-step-type='assistant_message']", has_text="Votre semaine de repas")
    try:
        week.last.wait_for(timeout=60_000)
    except Exception as exc:
        shot(page, "29-coach-debug-week")
        raise AssertionError("the coach's answer is not headed 'Votre semaine de repas' (60 s)") from exc
    assert "Jour 7" in week.last.inner_text()
    scroll_into_view(week.last.get_by_text("Les jours suivants"))
    shot(page, "29-coach-06-fr-week-of-meals")
