"""Issue 29, the same coach thread in two tabs of one browser (fr-FR), in Chromium on the shared
app: a choice clicked in tab B shows in tab A without a reload (B's click as the person's message,
the coach's answer, the next question with its live buttons, a note in French that the
conversation went on in another tab), tab A's old buttons are gone, and a click in tab A then
answers once and shows in tab B the same way. Screenshots: test-artifacts/browser/29-tabs-*.png.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.e2e.conftest import Stack, ask, login, shot, switch_profile, wait_idle

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

OTHER_TAB_NOTE = "a continué dans un autre onglet"
USER_MESSAGES = "[data-step-type='user_message']"


def see(locator: Any, what: str, timeout_ms: int = 120_000) -> None:
    """Wait for what a person would see; on timeout fail saying what never showed."""
    try:
        locator.wait_for(timeout=timeout_ms)
    except Exception as exc:  # playwright's TimeoutError, in the words of the test
        shot(locator.page, "29-tabs-debug-not-seen")
        raise AssertionError(f"{what} (not seen within {timeout_ms // 1000} s)") from exc


def buttons(page: Any, label: str) -> Any:
    return page.get_by_role("button", name=label, exact=True)


def said(page: Any, text: str) -> Any:
    return page.locator(USER_MESSAGES, has_text=text)


def click_and_wait(page: Any, label: str, next_label: str) -> None:
    """Click a quick choice; wait for it as the person's message and for the next question's buttons."""
    buttons(page, label).last.click()
    see(said(page, label).last, f"the clicked {label!r} shows as the person's message")
    see(buttons(page, next_label).last, f"the next question offers {next_label!r}")
    wait_idle(page)


def test_a_choice_in_one_tab_shows_in_the_other(new_page: Callable[..., Any], stack: Stack) -> None:
    tab_a = new_page(locale="fr-FR")
    tab_a.set_default_timeout(180_000)
    login(tab_a, stack.url)
    switch_profile(tab_a, "Coach")
    tab_a.wait_for_selector("#chat-input")
    ask(tab_a, "Propose-moi un programme de musculation sur 3 jours")
    see(buttons(tab_a, "Végétarien").last, "the coach's first question offers 'Végétarien'")
    tab_a.wait_for_function("() => location.pathname.startsWith('/thread/')", timeout=30_000)
    thread_url = tab_a.url

    tab_b = tab_a.context.new_page()  # a second tab of the same browser, on the same thread
    tab_b.set_default_timeout(180_000)
    tab_b.goto(thread_url)
    see(buttons(tab_b, "Végétarien").last, "tab B shows the pending question's buttons")
    click_and_wait(tab_b, "Végétarien", "Rien à ajouter")

    # tab A, untouched: it shows where the conversation is now, and says why, in French
    see(tab_a.get_by_text(OTHER_TAB_NOTE).last, "tab A says the conversation went on in another tab")
    see(said(tab_a, "Végétarien").last, "tab A shows the choice made in tab B")
    see(buttons(tab_a, "Rien à ajouter").last, "tab A shows the new question's buttons")
    assert buttons(tab_a, "Végétarien").count() == 0, "tab A's answered question lost its buttons"
    assert buttons(tab_a, "Rien à ajouter").count() == 1, "one set of buttons in tab A"
    assert said(tab_a, "Propose-moi un programme").count() == 1, "the thread is shown once, not appended"
    shot(tab_a, "29-tabs-01-a-after-a-click-in-b")

    # a click in tab A now answers the new question (not refused) and shows in tab B the same way
    answers_b = tab_b.locator("[data-step-type='assistant_message']").count()
    buttons(tab_a, "Rien à ajouter").last.click()
    see(said(tab_a, "Rien à ajouter").last, "tab A's click shows as the person's message")
    wait_idle(tab_a)
    assert tab_a.get_by_text("déjà reçu une réponse").count() == 0, "tab A's click on the new question was refused"
    see(tab_b.get_by_text(OTHER_TAB_NOTE).last, "tab B says the conversation went on in another tab")
    see(said(tab_b, "Rien à ajouter").last, "tab B shows the choice made in tab A")
    assert tab_b.locator("[data-step-type='assistant_message']").count() > answers_b
    assert buttons(tab_b, "Végétarien").count() == 0
    shot(tab_b, "29-tabs-02-b-after-a-click-in-a")
