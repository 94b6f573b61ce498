"""One app start shared by every browser test: the knowledge base's index is a copy of the suite's
cached demo-KB ingest (built once per KB and knowledge code, shared with the unit and scale runs), the coach
agent service and the Chainlit app (orchestrator on) are started once per session, and one
Chromium is launched once. Each test gets a fresh browser context (its own cookies, locale).

Tests that must kill or restart an app (restart, second instance), or need other settings or a
data folder of their own, start one more app with `start_app` over the shared coach service.

Under pytest-xdist (`scripts/test.sh` runs this suite on two workers, `--dist loadfile`) each
worker has its own stack and Chromium, and a module's tests stay on one worker, so its module
fixtures start once."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.chainlit_driver import (
    ServerProcess,
    agent_server,
    chainlit_server,
    start_together,
)
from tests.conftest import REPO_ROOT
from tests.demo_index import cache_root_for, ingested_data_dir

ARTIFACTS = REPO_ROOT / "test-artifacts" / "browser"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
USERS = {"alice": "alice-pass-1", "bob": "bob-pass-2"}


@dataclass
class Stack:
    """The running app, its agent service and the folders they share."""

    app: ServerProcess
    agent: ServerProcess
    data_dir: Path
    workdir: Path

    @property
    def url(self) -> str:
        return self.app.url


def start_stack(data_dir: Path, workdir: Path, **app_env: str) -> Stack:
    """An agent service and a Chainlit app (orchestrator on) over `data_dir` (already indexed)."""
    agent = agent_server(data_dir, workdir)
    app = chainlit_server(data_dir, workdir, ENABLE_ORCHESTRATOR="true", EXTERNAL_AGENT_URL=agent.url, **app_env)
    start_together((agent, 180), (app, 180))  # side by side: each slower, together sooner
    return Stack(app=app, agent=agent, data_dir=data_dir, workdir=workdir)


def start_app(stack: Stack, workdir: Path, data_dir: Path | None = None, **app_env: str) -> ServerProcess:
    """Another Chainlit app (orchestrator on) over `stack`'s coach service and data folder (or
    `data_dir`): a test that needs the app with other settings starts one process, not a second
    coach service."""
    return chainlit_server(data_dir or stack.data_dir, workdir, ENABLE_ORCHESTRATOR="true",
                           EXTERNAL_AGENT_URL=stack.agent.url, **app_env).start()


@pytest.fixture(scope="session")
def indexed_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo KB indexed: a copy of the cached ingest, not a fresh one (~1 min of encoding)."""
    return ingested_data_dir(tmp_path_factory.mktemp("browser-data") / "data", cache_root_for(tmp_path_factory))


@pytest.fixture(scope="session")
def stack(indexed_data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The shared app: started once for every browser test that does not kill it."""
    # alice is the admin of the operator pages (/admin); bob is an ordinary user
    running = start_stack(indexed_data_dir, tmp_path_factory.mktemp("browser-stack"), RELAIS_ADMINS="alice")
    yield running
    running.app.stop()
    running.agent.stop()


@pytest.fixture(scope="session")
def app_url(stack: Stack) -> str:
    return stack.url


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture()
def new_page(chromium: Any) -> Iterator[Callable[..., Any]]:
    """A factory of pages, each in its own browser context (`locale="fr-FR"` for French)."""
    contexts: list[Any] = []

    def make(locale: str = "en-US", width: int = 1280, height: int = 900) -> Any:
        context = chromium.new_context(viewport={"width": width, "height": height}, locale=locale)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(60_000)
        return page

    yield make
    for context in contexts:
        context.close()


@pytest.fixture()
def page(new_page: Callable[..., Any]) -> Any:
    return new_page()


def shot(page: Any, name: str) -> None:
    """A full-page screenshot kept under test-artifacts/browser/ (look at it)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def login(page: Any, base_url: str, user: str = "alice") -> None:
    """Log in through the login form like a person, and wait for the chat to be connected."""
    page.goto(base_url + "/login")
    page.locator("input").first.fill(user)
    page.locator("input[type=password]").fill(USERS[user])
    page.click("button[type=submit]")
    page.wait_for_url(base_url + "/")
    page.wait_for_selector("#chat-input")
    page.wait_for_timeout(1000)


def switch_profile(page: Any, name: str, shown: str | None = None) -> None:
    """Pick a chat profile like a person, and wait until the page shows it (the selector names it,
    on an empty chat's welcome): the chat is reset by then, so a question typed next goes to the new
    session (typed before, on a busy machine, it could be sent and then wiped by the reset)."""
    page.locator("#chat-profiles").click()
    page.locator(f"[data-test='select-item:{name}']").click()
    page.locator("#chat-profiles").get_by_text(shown or name, exact=True).wait_for()
    page.locator("#welcome-screen").wait_for()


def ask(page: Any, text: str) -> None:
    """Type into the composer like a person and wait for the answer to finish."""
    before = page.locator("[data-step-type='assistant_message']").count()
    users = page.locator("[data-step-type='user_message']").count()
    page.locator("#chat-input").click()
    page.keyboard.type(text)
    page.locator("#chat-submit").click()
    try:  # the question shown as sent, within the page's own patience (not a fixed 15 s: load 16 took longer)
        page.wait_for_function(
            "n => document.querySelectorAll(\"[data-step-type='user_message']\").length > n", arg=users
        )
    except Exception:
        shot(page, "debug-not-sent")
        raise
    page.wait_for_function(
        "n => document.querySelectorAll(\"[data-step-type='assistant_message']\").length > n", arg=before
    )
    wait_idle(page)


def wait_idle(page: Any) -> None:
    """The task is over when Chainlit's stop button is gone."""
    page.wait_for_selector("#stop-button", state="detached", timeout=120_000)
    page.wait_for_timeout(500)


def scroll_into_view(locator: Any, timeout_s: float = 30.0) -> None:
    """Scroll `locator` into view as a person scrolls to it. Playwright resolves the element once
    for this action, and React may swap a message's nodes for identical ones meanwhile (a turn's
    final write, a tab refresh): "Element is not attached to the DOM" then says nothing about what a
    person sees, so the locator is resolved again until the deadline; a real absence still fails."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            locator.scroll_into_view_if_needed(timeout=max(1_000, int((deadline - time.monotonic()) * 1000)))
            return
        except PlaywrightError as exc:
            if "not attached" not in str(exc) or time.monotonic() >= deadline:
                raise


def click_until(page: Any, locator: Any, shown: str, timeout_s: float = 60.0) -> None:
    """Click `locator` until the page shows what the click opens (`shown`: a JS predicate), as a
    person clicks again when nothing opened: a click that lands while a resumed thread's messages
    are replaced (Chainlit's reconnect sends the thread again) hits nodes that are gone. What the
    click must open is still required at the deadline."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            locator.click(timeout=10_000)
            page.wait_for_function(shown, timeout=10_000)
            return
        except PlaywrightError:
            if time.monotonic() >= deadline:
                raise


def last_answers(page: Any, n: int = 3) -> str:
    texts = page.locator("[data-step-type='assistant_message']").all_inner_texts()
    return "\n".join(texts[-n:])
