"""Human-in-the-loop in Chromium, coach side: the coach's pending prompt comes back with its buttons
whenever a thread is shown again, and one click is one resume.

Matrix {page reload, resume from the sidebar, app killed (kill -9) and restarted, thread opened on
a second instance} × {coach prompt pending} on the path `make run` shows (Assistant → hand-off to
the coach service), plus the in-process Coach profile after a reload, a double click and a click
in a stale tab. The counter of resumes is the coach's own checkpoint: the person's messages it
holds (the human node adds exactly one per resume). Screenshots: test-artifacts/browser/13-coach-*.png
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.chainlit_driver import ServerProcess, chainlit_server
from tests.coach.test_service import saved_state
from tests.e2e.conftest import Stack, ask, login, scroll_into_view, switch_profile
from tests.e2e.conftest import shot as take_shot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

WORKOUT = "Build muscle, lose fat — suggest a workout plan"
VEG = "I'm vegetarian."
BUTTONS = "button:has-text('Vegetarian')"


@pytest.fixture(scope="module")
def second_app(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Another Chainlit instance on the same data folder and agent (killed and restarted too)."""
    app = chainlit_server(
        stack.data_dir, tmp_path_factory.mktemp("hitl-coach"), ENABLE_ORCHESTRATOR="true", EXTERNAL_AGENT_URL=stack.agent.url
    ).start()
    yield app
    app.stop()


@pytest.fixture()
def page(new_page: Callable[..., Any]) -> Any:
    return patient(new_page())


def patient(page: Any) -> Any:
    """Waits sized for a shared 2-core machine (the first hand-off loads the encoder)."""
    page.set_default_timeout(180_000)
    return page


def humans(data_dir: Path, thread_id: str) -> list[str]:
    """The person's messages in the coach's checkpoint: one more per resume, never two."""
    return saved_state(data_dir / "checkpoints.db", thread_id)["humans"]


def newest_thread(page: Any, base: str) -> str:
    """The user's newest thread, from the app's own thread list (the browser's cookie)."""
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "access_token")
    reply = httpx.post(base + "/project/threads", json={"pagination": {"first": 5}, "filter": {}},
                       cookies={"access_token": token}, timeout=30)
    reply.raise_for_status()
    return reply.json()["data"][0]["id"]


def shot(page: Any, name: str, full: bool = True) -> None:
    """The screenshot, with the live prompt's buttons scrolled into view (the chat scrolls inside)."""
    if full and page.locator(BUTTONS).count():
        try:
            page.locator(BUTTONS).last.scroll_into_view_if_needed(timeout=10_000)
        except PlaywrightError:  # the set was just replaced (a second resume re-sends it): shot as is
            pass
    take_shot(page, name)


def user_messages(page: Any, text: str) -> int:
    return page.locator("[data-step-type='user_message']", has_text=text).count()


def start_coach_thread(page: Any, base: str, data_dir: Path) -> str:
    """Login, hand-off to the coach; the thread waits on the coach's first prompt."""
    login(page, base)
    ask(page, WORKOUT)
    page.locator(BUTTONS).last.wait_for()
    thread_id = newest_thread(page, base)
    assert humans(data_dir, thread_id) == [WORKOUT]
    return thread_id


def wait_until(page: Any, script: str, arg: Any, what: str, timeout_ms: int = 180_000) -> None:
    """Wait for something a person would see; on timeout fail saying what never showed."""
    try:
        page.wait_for_function(script, arg=arg, timeout=timeout_ms)
    except Exception as exc:  # playwright's TimeoutError: say it in the words of the test
        raise AssertionError(f"{what} (not seen within {timeout_ms // 1000} s)") from exc


PROMPT_GROUPS = "[data-step-type] .-ml-1\\.5.flex.flex-wrap:has(> button[id]:not(#submit-feedback))"  # relais.css
ONE_PROMPT_JS = "label => Array.from(document.querySelectorAll('button')).filter(b => b.innerText.trim() === label).length === 1"
COUNT_JS = "([sel, text, n]) => Array.from(document.querySelectorAll(sel)).filter(e => e.innerText.includes(text)).length > n"


def click_once_and_check(page: Any, data_dir: Path, thread_id: str, cell: str, click: Callable[[Any], None] | None = None) -> None:
    """Buttons back → one click → exactly one resume, no duplicated message, no restarted thread."""
    wait_until(page, ONE_PROMPT_JS, "Vegetarian", "the pending prompt's buttons came back, one set")
    assert user_messages(page, WORKOUT) == 1  # the thread is whole, not restarted
    answers_before = page.locator("[data-step-type='assistant_message']").count()
    shot(page, f"13-coach-{cell}-back")
    (click or (lambda button: button.click()))(page.locator(BUTTONS).first)
    wait_until(page, COUNT_JS, ["[data-step-type='user_message']", "Vegetarian", 0],
               "the clicked choice shows as the person's message")
    wait_until(page, "n => document.querySelectorAll(\"[data-step-type='assistant_message']\").length > n + 1",
               answers_before, "the coach answered the choice and asked its next question")
    wait_until(page, "sel => document.querySelectorAll(sel).length === 1", PROMPT_GROUPS,
               "the next prompt's buttons, and the answered prompt's are gone")
    page.wait_for_timeout(1500)  # a second resume, if any, would land now
    assert humans(data_dir, thread_id) == [WORKOUT, VEG]
    assert user_messages(page, "Vegetarian") == 1
    assert user_messages(page, WORKOUT) == 1
    assert page.locator(PROMPT_GROUPS).count() == 1, "the answered prompt lost its buttons"
    shot(page, f"13-coach-{cell}")


def test_reload(page: Any, stack: Stack) -> None:
    thread_id = start_coach_thread(page, stack.url, stack.data_dir)
    page.goto(f"{stack.url}/thread/{thread_id}")  # the thread's own address, then a reload of it
    wait_until(page, ONE_PROMPT_JS, "Vegetarian", "the thread's pending prompt is shown again")
    page.reload()
    # what a person waits for after a reload: the prompt's buttons back (not just the stored thread);
    # a click on them is delivered even while the page's socket is still settling (issue 24)
    click_once_and_check(page, stack.data_dir, thread_id, "reload")
    # the resumed thread is whole: its tool step expands to show what was called
    page.reload()
    page.locator(PROMPT_GROUPS).first.wait_for()  # the next prompt (its choices follow the answer)
    tool = page.locator("[data-step-type='tool']").first
    scroll_into_view(tool)
    tool.locator("button").first.click()
    tool.get_by_text("workout_plan(", exact=False).first.wait_for(timeout=15_000)
    shot(page, "13-coach-steps-after-resume", full=False)


def test_resume_from_sidebar(page: Any, stack: Stack) -> None:
    thread_id = start_coach_thread(page, stack.url, stack.data_dir)
    page.goto(stack.url + "/")  # a new chat, then the thread from the sidebar
    page.wait_for_selector("#chat-input")
    page.locator(f"a[href='/thread/{thread_id}']").first.click()
    page.wait_for_selector("[data-step-type='assistant_message']")
    click_once_and_check(page, stack.data_dir, thread_id, "sidebar")


def test_second_instance(new_page: Callable[..., Any], stack: Stack, second_app: ServerProcess) -> None:
    first = patient(new_page())
    thread_id = start_coach_thread(first, stack.url, stack.data_dir)
    other = patient(new_page())
    login(other, second_app.url)
    other.goto(f"{second_app.url}/thread/{thread_id}")
    other.wait_for_selector("[data-step-type='assistant_message']")
    click_once_and_check(other, stack.data_dir, thread_id, "second-instance")


def test_kill9_and_restart(page: Any, stack: Stack, second_app: ServerProcess) -> None:
    thread_id = start_coach_thread(page, second_app.url, stack.data_dir)
    second_app.kill9()
    second_app.start()
    page.goto(f"{second_app.url}/thread/{thread_id}")
    page.wait_for_selector("[data-step-type='assistant_message']")
    click_once_and_check(page, stack.data_dir, thread_id, "restart")


def test_coach_profile_reload(page: Any, stack: Stack) -> None:
    """The in-process Coach profile: its own checkpointer, keyed by the Chainlit thread id."""
    login(page, stack.url)
    switch_profile(page, "Coach")
    page.wait_for_timeout(1500)
    ask(page, WORKOUT)
    page.locator(BUTTONS).last.wait_for()
    thread_id = newest_thread(page, stack.url)
    page.goto(f"{stack.url}/thread/{thread_id}")
    page.wait_for_selector("[data-step-type='assistant_message']")
    page.locator(BUTTONS).first.wait_for()
    # the browser then switches to the thread's profile and reconnects: a second resume of the
    # same session, which must replace the buttons, never add a second set
    page.wait_for_timeout(3000)
    click_once_and_check(page, stack.data_dir, thread_id, "profile-reload")


def test_double_click(page: Any, stack: Stack) -> None:
    thread_id = start_coach_thread(page, stack.url, stack.data_dir)
    click_once_and_check(page, stack.data_dir, thread_id, "double-click", click=lambda button: button.dblclick())


def test_stale_tab(new_page: Callable[..., Any], stack: Stack) -> None:
    """Two tabs on one thread: answered in one, the other tab shows the new state (the choice, the
    next question's buttons, a note that the conversation went on in another tab; issue 29)."""
    tab_a = patient(new_page())
    thread_id = start_coach_thread(tab_a, stack.url, stack.data_dir)
    tab_b = patient(tab_a.context.new_page())
    tab_b.goto(f"{stack.url}/thread/{thread_id}")
    tab_b.locator(BUTTONS).first.wait_for()
    tab_a.goto(f"{stack.url}/thread/{thread_id}")
    click_once_and_check(tab_a, stack.data_dir, thread_id, "stale-tab-a")
    wait_until(tab_b, COUNT_JS, ["[data-step-type='assistant_message']", "went on in another tab", 0],
               "tab B says the conversation went on in another tab")
    wait_until(tab_b, COUNT_JS, ["[data-step-type='user_message']", "Vegetarian", 0],
               "tab B shows the choice made in tab A")
    assert humans(stack.data_dir, thread_id) == [WORKOUT, VEG]
    assert tab_b.locator(BUTTONS).count() == 0, "the prompt answered in the other tab lost its buttons here too"
    assert tab_b.locator(PROMPT_GROUPS).count() == 1, "tab B shows the next question's buttons, one set"
    shot(tab_b, "13-coach-stale-tab-b")
