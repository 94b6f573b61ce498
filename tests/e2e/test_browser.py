"""A real browser (Debian's Chromium driven by Playwright) against the real app and coach service.

Login → a help-center question (answer + sources) → hand-off to the coach → the seed's three
turns with the constraint prompt after each answer, "Vegetarian" clicked → reload, resume the
thread from the sidebar → the first answer's source still opens → still with the coach. Screenshots of each step: test-artifacts/browser/.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from typing import Iterator

import pytest

from tests.chainlit_driver import agent_server, chainlit_server, relais_env
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.browser

ARTIFACTS = REPO_ROOT / "test-artifacts" / "browser"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("browser")
    data_dir = work / "data"
    subprocess.run([sys.executable, "-m", "chatbot.cli", "ingest"], env=relais_env(data_dir), cwd=REPO_ROOT, check=True, capture_output=True, timeout=600)
    agent = agent_server(data_dir, work).start()
    app = chainlit_server(data_dir, work, ENABLE_ORCHESTRATOR="true", EXTERNAL_AGENT_URL=agent.url).start()
    yield app.url
    app.stop()
    agent.stop()


@pytest.fixture()
def page(app_url: str) -> Iterator:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
        page = context.new_page()
        page.set_default_timeout(60_000)
        yield page
        context.close()
        browser.close()


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def ask(page, text: str) -> None:
    """Type into the composer like a person and wait for the answer to finish."""
    before = page.locator("[data-step-type='assistant_message']").count()
    users = page.locator("[data-step-type='user_message']").count()
    page.locator("#chat-input").click()
    page.keyboard.type(text)
    page.locator("#chat-submit").click()
    try:
        page.wait_for_function(
            "n => document.querySelectorAll(\"[data-step-type='user_message']\").length > n", arg=users, timeout=15_000
        )
    except Exception:
        shot(page, "debug-not-sent")
        raise
    page.wait_for_function(
        "n => document.querySelectorAll(\"[data-step-type='assistant_message']\").length > n", arg=before
    )
    wait_idle(page)


def wait_idle(page) -> None:
    """The task is over when Chainlit's stop button is gone."""
    page.wait_for_selector("#stop-button", state="detached", timeout=120_000)
    page.wait_for_timeout(500)


def last_answers(page, n: int = 3) -> str:
    texts = page.locator("[data-step-type='assistant_message']").all_inner_texts()
    return "\n".join(texts[-n:])


def test_help_center_then_coach_then_resume(page, app_url: str) -> None:
    page.goto(app_url + "/login")
    page.locator("input").first.fill("alice")
    page.locator("input[type=password]").fill("alice-pass-1")
    page.click("button[type=submit]")
    page.wait_for_url(app_url + "/")
    page.wait_for_selector("#chat-input")
    page.get_by_text("Pricing").first.wait_for()  # starters shown: the session is connected
    page.wait_for_timeout(1000)
    shot(page, "01-logged-in")

    ask(page, "How much does the base plan cost?")
    answer = last_answers(page, 1)
    assert "$10" in answer
    assert "plans-and-pricing.md" in answer.lower()  # the source is shown
    shot(page, "02-help-center-answer")

    ask(page, "Build muscle, lose fat — suggest a workout plan")
    text = last_answers(page, 4).lower()
    assert "coach" in text  # the hand-off is visible
    assert "sets" in text or "reps" in text or "×" in text
    page.get_by_role("button", name="Vegetarian").last.wait_for()  # the constraint prompt
    shot(page, "03-coach-workout-plan")

    ask(page, "What should I eat to support this workout plan?")
    assert "kcal" in last_answers(page).lower()
    shot(page, "04-coach-nutrition")

    page.get_by_role("button", name="Vegetarian").last.click()
    page.wait_for_function(
        "() => [...document.querySelectorAll(\"[data-step-type='assistant_message']\")].some(e => /tofu|lentil|paneer|tempeh/i.test(e.innerText))"
    )
    wait_idle(page)
    vegetarian = last_answers(page, 2).lower()
    assert "chicken" not in vegetarian and "beef" not in vegetarian
    shot(page, "05-vegetarian-clicked")

    page.reload()
    page.wait_for_selector("#chat-input")
    page.get_by_text("How much does the base plan").first.click()  # the thread in the sidebar
    page.wait_for_selector("[data-step-type='assistant_message']")
    page.wait_for_timeout(1500)
    shot(page, "06-thread-resumed")
    # the first answer's source, kept with the thread, opens in the side panel after the reload
    page.locator("[data-step-type='assistant_message']").first.get_by_text("plans-and-pricing.md").first.click()
    page.wait_for_function(
        "() => /\\$10/.test(document.querySelector('#side-view-content')?.innerText || '')", timeout=15_000
    )
    shot(page, "06b-source-after-resume")
    ask(page, "I have a knee injury, adjust my workout")
    resumed = last_answers(page, 2).lower()
    assert "lunge" not in resumed or "no lunge" in resumed or "avoid" in resumed
    assert "sets" in resumed or "reps" in resumed  # still the coach, not the help center
    shot(page, "07-still-with-the-coach")
