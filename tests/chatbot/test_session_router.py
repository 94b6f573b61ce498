"""A button click that reaches an instance without the browser's socket is forwarded to the
instance holding it (round-robin balancers, no sticky sessions). Two real app instances share one
SQLite chat database here; the scale suite does the same behind nginx on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.chainlit_driver import ServerProcess, chainlit_server, login
from tests.resilience.harness import Chat, coach_answered

pytestmark = pytest.mark.slow

WORKOUT = "I have a knee injury. Build muscle, lose fat — suggest a workout plan"


@pytest.fixture(scope="module")
def two_instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    work = tmp_path_factory.mktemp("session-router")
    a, b = chainlit_server(work / "data", work), chainlit_server(work / "data", work)
    try:
        a.start(timeout=240)
        b.start(timeout=240)
        yield a, b
    finally:
        a.stop()
        b.stop()


async def test_a_click_on_the_other_instance_reaches_the_socket_holder(two_instances) -> None:
    a, b = two_instances
    chat = Chat(a.url, login(a.url, "alice", "alice-pass-1"), chat_profile="Coach")
    await chat.connect()
    try:
        first = await chat.ask(WORKOUT)
        assert coach_answered(first), first.text[:400]
        chat.base_url = b.url  # as a balancer would send it: to the instance without the socket
        clicked = await chat.click_label("Vegetarian", first.actions)
        assert coach_answered(clicked) and "vegetarian" in clicked.text.lower(), clicked.text[:400]
        # the hop keeps the caller's identity: another user's click on alice's session is refused
        bob = login(a.url, "bob", "bob-pass-2")
        async with httpx.AsyncClient(cookies={"access_token": bob}, timeout=60) as http:
            stranger = await http.post(b.url + "/project/action",
                                       json={"sessionId": chat.session_id, "action": clicked.actions[0]})
        assert stranger.status_code == 401, stranger.text
    finally:
        await chat.close()

