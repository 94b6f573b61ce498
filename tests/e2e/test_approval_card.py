"""Tool approvals in Chromium: the booking agent behind a real LangGraph server (`langgraph dev`),
its HumanInTheLoopMiddleware requests shown as approval cards; and the demo's own path (`make run`:
`relais agent serve` routing between the booking agent and the coach over Relais's protocol).

Cells: approve, edit (guided typed reply), reject, reload mid-approval, double click, second tab,
the LangGraph server restarted mid-approval, several actions in one card, the demo routing. Each
checks the booking store itself (the server's SQLite file): exactly one new row, or none.
Screenshots: test-artifacts/browser/20-approval-*.png, 26-*.png
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from booking.store import Booking, BookingStore
from tests.chainlit_driver import ServerProcess, chainlit_server
from tests.e2e.conftest import Stack, ask, login, shot, wait_idle
from tests.e2e.test_hitl_coach import newest_thread

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]

REQUEST = "Book me a yoga class on Monday at 18:00"
APPROVE, EDIT, REJECT = "button:has-text('Approve')", "button:has-text('Edit')", "button:has-text('Reject')"


@pytest.fixture(scope="module")
def booking_app(langgraph_server: Any, indexed_data_dir: Any, tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[ServerProcess]:
    """The Assistant with its hand-off pointed at the LangGraph server's booking agent."""
    app = chainlit_server(
        indexed_data_dir, tmp_path_factory.mktemp("approval-app"), ENABLE_ORCHESTRATOR="true",
        EXTERNAL_AGENT_URL=langgraph_server.url, EXTERNAL_AGENT_PROTOCOL="langgraph",
        EXTERNAL_AGENT_ASSISTANT="booking",
    ).start()
    yield app
    app.stop()


@pytest.fixture()
def page(new_page: Callable[..., Any]) -> Any:
    page = new_page()
    page.set_default_timeout(180_000)  # the first hand-off loads the encoder on a shared machine
    return page


def rows(server: Any, before: set[str]) -> list[Booking]:
    return [b for b in BookingStore(server.booking_db).bookings() if b.tool_call_id not in before]


def ids(server: Any) -> set[str]:
    return {b.tool_call_id for b in BookingStore(server.booking_db).bookings()}


def open_card(page: Any, base: str, request: str = REQUEST) -> None:
    login(page, base)
    ask(page, request)
    page.locator(APPROVE).last.wait_for()


def wait_answer(page: Any, text: str) -> None:
    page.locator("[data-step-type='assistant_message']", has_text=text).last.wait_for()
    wait_idle(page)
    page.wait_for_timeout(1500)  # a second resume, if any, would land now


def test_approve(page: Any, booking_app: ServerProcess, langgraph_server: Any) -> None:
    before = ids(langgraph_server)
    open_card(page, booking_app.url)
    card = page.locator("[data-step-type='assistant_message']", has_text="Approval needed").last
    assert "book_class" in card.inner_text() and "day: monday" in card.inner_text().replace("\n", " ")
    assert page.locator(EDIT).count() == 1 and page.locator(REJECT).count() == 1
    shot(page, "20-approval-card")
    page.locator(APPROVE).last.click()
    wait_answer(page, "Booked #")
    assert [(r.activity, r.day, r.time) for r in rows(langgraph_server, before)] == [("yoga", "monday", "18:00")]
    assert page.locator(APPROVE).count() == 0, "the answered card lost its buttons"
    shot(page, "20-approval-approved")


def test_edit(page: Any, booking_app: ServerProcess, langgraph_server: Any) -> None:
    before = ids(langgraph_server)
    open_card(page, booking_app.url)
    page.locator(EDIT).last.click()
    page.get_by_text("Type the new values").last.wait_for()
    shot(page, "20-approval-edit-help")
    page.locator("#chat-input").click()
    page.keyboard.type("day=wednesday, time=7:30")  # the bare changes: the Edit button made it an edit
    page.locator("#chat-submit").click()
    wait_answer(page, "Booked #")
    assert [(r.activity, r.day, r.time) for r in rows(langgraph_server, before)] == [("yoga", "wednesday", "07:30")]
    shot(page, "20-approval-edited")


def test_reject(page: Any, booking_app: ServerProcess, langgraph_server: Any) -> None:
    before = ids(langgraph_server)
    open_card(page, booking_app.url, "Reserve a spot in Saturday's boxing class")
    page.locator(REJECT).last.click()
    wait_answer(page, "nothing was done")
    assert rows(langgraph_server, before) == []
    shot(page, "20-approval-rejected")


def test_reload_mid_approval(page: Any, booking_app: ServerProcess, langgraph_server: Any) -> None:
    before = ids(langgraph_server)
    open_card(page, booking_app.url)
    thread_id = newest_thread(page, booking_app.url)
    page.goto(f"{booking_app.url}/thread/{thread_id}")
    page.reload()
    page.locator(APPROVE).first.wait_for()
    page.wait_for_timeout(1000)
    assert page.locator(APPROVE).count() == 1, "the card's buttons came back once"
    shot(page, "20-approval-reload-back")
    page.locator(APPROVE).first.click()
    wait_answer(page, "Booked #")
    assert len(rows(langgraph_server, before)) == 1
    shot(page, "20-approval-reload-approved")


def test_double_click(page: Any, booking_app: ServerProcess, langgraph_server: Any) -> None:
    before = ids(langgraph_server)
    open_card(page, booking_app.url, "Book spinning on Friday at 19:00")
    page.locator(APPROVE).last.dblclick()
    wait_answer(page, "Booked #")
    assert len(rows(langgraph_server, before)) == 1
    assert page.locator("[data-step-type='assistant_message']", has_text="Booked #").count() == 1
    shot(page, "20-approval-double-click")


def test_second_tab(page: Any, booking_app: ServerProcess, langgraph_server: Any) -> None:
    """The same thread in two tabs: approved in one, the other tab is shown the new state (the
    booking, the card without its buttons, a note that the conversation went on in another tab)."""
    before = ids(langgraph_server)
    open_card(page, booking_app.url, "Book pilates on Thursday at 18:30")
    thread_id = newest_thread(page, booking_app.url)
    other = page.context.new_page()
    other.set_default_timeout(180_000)
    other.goto(f"{booking_app.url}/thread/{thread_id}")
    other.locator(APPROVE).first.wait_for()
    page.goto(f"{booking_app.url}/thread/{thread_id}")
    page.locator(APPROVE).first.click()
    wait_answer(page, "Booked #")
    other.locator("[data-step-type='assistant_message']", has_text="went on in another tab").last.wait_for()
    other.locator("[data-step-type='assistant_message']", has_text="Booked #").last.wait_for()
    other.wait_for_timeout(1500)
    assert [(r.activity, r.day, r.time) for r in rows(langgraph_server, before)] == [("pilates", "thursday", "18:30")]
    assert other.locator(APPROVE).count() == 0, "the card answered in the other tab lost its buttons here too"
    shot(other, "26-approval-second-tab")


def test_server_restarted_mid_approval(page: Any, booking_app: ServerProcess, langgraph_server: Any) -> None:
    """The LangGraph server stops and starts again while the card waits: the card still works, once."""
    before = ids(langgraph_server)
    open_card(page, booking_app.url, "Book swimming on Tuesday at 08:00")
    thread_id = newest_thread(page, booking_app.url)
    langgraph_server.restart()
    page.goto(f"{booking_app.url}/thread/{thread_id}")  # the buttons come back from the server's state
    page.locator(APPROVE).first.wait_for()
    shot(page, "26-approval-after-server-restart")
    page.locator(APPROVE).first.click()
    wait_answer(page, "Booked #")
    assert [(r.activity, r.day, r.time) for r in rows(langgraph_server, before)] == [("swimming", "tuesday", "08:00")]
    shot(page, "26-approval-restart-approved")


def test_several_actions_in_one_card(page: Any, booking_app: ServerProcess, langgraph_server: Any) -> None:
    """Two bookings in one request: one card, one decision each, sent together."""
    before = ids(langgraph_server)
    open_card(page, booking_app.url, "Book spinning on Monday at 07:00 and boxing on Wednesday at 20:00")
    card = page.locator("[data-step-type='assistant_message']", has_text="Approval needed").last
    assert "2 actions" in card.inner_text() and card.inner_text().count("book_class") == 2
    shot(page, "26-approval-two-actions")
    ask(page, "approve; reject: the boxing is too late")
    wait_answer(page, "nothing was done")
    assert [(r.activity, r.day, r.time) for r in rows(langgraph_server, before)] == [("spinning", "monday", "07:00")]
    shot(page, "26-approval-two-actions-answered")


def test_demo_routes_a_booking_to_the_booking_agent_and_a_plan_to_the_coach(page: Any, stack: Stack) -> None:
    """`make run`'s path: one agent service over Relais's protocol, a booking card, then the coach."""
    store = BookingStore(stack.data_dir / "bookings.db")
    before = {b.tool_call_id for b in store.bookings()}
    open_card(page, stack.url, "Book me a boxing class on Saturday at 11:00")
    page.get_by_text("Handing you over to the agent").first.wait_for()
    page.locator(APPROVE).last.click()
    wait_answer(page, "Booked #")
    assert [(b.activity, b.day) for b in store.bookings() if b.tool_call_id not in before] == [("boxing", "saturday")]
    ask(page, "Now build me a 3-day workout plan")
    page.locator("button:has-text('Injury')").last.wait_for()  # the coach's quick choices
    assert "training plan" in page.locator("[data-step-type='assistant_message']").last.inner_text().lower() or \
        "training plan" in "".join(page.locator("[data-step-type='assistant_message']").all_inner_texts()[-3:]).lower()
    shot(page, "26-demo-routing")
