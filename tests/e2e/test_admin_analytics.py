"""The operator's loop in a real browser: a user rates answers with the thumbs under them (👎
with a comment), the thumb is still there after a reload, and the admin's analytics section
shows the not-found question and the 👎 per cited article. A non-admin gets 403.

The analytics count every vote in the app's chat database, so this test has an app (and a chat
database) of its own: a vote given by another browser test on the shared app (a 👍 under a pricing
answer) would change the 👎 rate it checks, whatever the order or the worker the tests run on."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.chainlit_driver import ServerProcess
from tests.demo_index import demo_data_dir
from tests.e2e.conftest import Stack, ask, login, shot, start_app

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]  # an app of its own, started cold

GAP = "What is the capital of Australia?"
PRICE = "How much does the base plan cost?"


def _thumb_down(page: Any, comment: str) -> None:
    """👎 under the last answer, then the comment dialog, like a person."""
    answer = page.locator("[data-step-type='assistant_message']").last
    answer.hover()
    page.locator(".negative-feedback-off").last.click()
    page.get_by_placeholder("Your feedback...").fill(comment)
    page.get_by_role("button", name="Submit feedback").click()
    page.wait_for_selector("text=Feedback updated")
    page.wait_for_timeout(500)


@pytest.fixture(scope="module")
def own_app(stack: Stack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The shared app's settings and coach service over a chat database no other test writes."""
    data_dir = demo_data_dir(tmp_path_factory, "analytics")
    app = start_app(stack, data_dir.parent, data_dir=data_dir, RELAIS_ADMINS="alice")
    yield app
    app.stop()


def test_thumbs_kept_and_admin_analytics(new_page: Any, own_app: ServerProcess) -> None:
    app_url = own_app.url
    page = new_page()
    page.set_default_timeout(240_000)  # the first answer loads the encoders; slow on a busy machine
    login(page, app_url, "alice")
    ask(page, PRICE)
    _thumb_down(page, "the annual price is missing")
    ask(page, GAP)
    _thumb_down(page, "no answer at all")
    thread_url = page.url
    assert "/thread/" in thread_url
    page.reload()  # the thread comes back from the data layer, with its thumbs
    page.wait_for_selector("[data-step-type='assistant_message']")
    page.wait_for_timeout(1500)
    assert page.locator(".negative-feedback-on").count() >= 2

    page.goto(app_url + "/admin/analytics")
    page.wait_for_selector("[data-testid='analytics-gaps']")
    gaps = page.locator("[data-testid='analytics-gaps']").inner_text()
    assert GAP in gaps
    articles = page.locator("[data-testid='analytics-articles']").inner_text()
    assert "Plans and pricing" in articles
    # the 👎 given under the pricing answer counts for the article it cited
    pricing = page.locator("[data-testid='analytics-articles'] tr", has_text="plans-and-pricing.md").inner_text()
    assert "100.0 %" in pricing, pricing
    cards = page.locator("[data-testid='analytics-cards']").inner_text()
    assert "Not found" in cards and "👎" in cards
    shot(page, "18-admin")

    other = new_page()
    login(other, app_url, "bob")
    response = other.goto(app_url + "/admin/analytics")
    assert response is not None and response.status == 403
