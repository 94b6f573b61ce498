"""`chatbot.chainlit_fixes.reconnect_resume`: a reconnect's re-resume of the thread runs after the
session's turn in progress (issue 24). Chainlit's handler is stood in for by a recorder, so the
order is exact; the same race through a real app is in `test_action_route.py`, and in Chromium in
`tests/e2e/test_click_after_reload.py`."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from chatbot.chainlit_fixes import reconnect_resume


def session(restored: bool = True, first: bool = True, thread: str | None = "t-1", task: Any = None) -> Any:
    return SimpleNamespace(id="s-1", restored=restored, has_first_interaction=first,
                           thread_id_to_resume=thread, current_task=task)


def installed(monkeypatch: pytest.MonkeyPatch, live: Any) -> tuple[Any, list[str]]:
    """A socket.io server stand-in whose `connection_successful` records when Chainlit's would run."""
    calls: list[str] = []

    async def chainlit_resume(sid: str) -> str:
        calls.append("chainlit resumes")
        return sid

    sio = SimpleNamespace(handlers={"/": {"connection_successful": chainlit_resume}})
    monkeypatch.setattr(reconnect_resume.WebsocketSession, "get", staticmethod(lambda sid: live))
    monkeypatch.setattr(reconnect_resume, "get_data_layer", lambda: None)
    reconnect_resume.install(sio)
    reconnect_resume.install(sio)  # idempotent: wrapped once
    return sio.handlers["/"]["connection_successful"], calls


async def click_running(calls: list[str]) -> asyncio.Task[None]:
    """A click's callback under way in session "s-1" for 0.3 s (it notes when it is done)."""

    async def click() -> None:
        async with reconnect_resume.running("s-1"):
            await asyncio.sleep(0.3)
            calls.append("click done")

    clicking = asyncio.create_task(click())
    await asyncio.sleep(0.05)
    return clicking


async def test_a_reconnect_during_a_click_resumes_after_the_click(monkeypatch: pytest.MonkeyPatch) -> None:
    handler, calls = installed(monkeypatch, session())

    clicking = await click_running(calls)
    assert await handler("sid-2") == "sid-2"
    await clicking
    assert calls == ["click done", "chainlit resumes"]
    assert not reconnect_resume.turn_in_progress(session())  # the count is back to zero


async def test_a_reconnect_during_a_message_waits_for_its_task(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    async def message_turn() -> None:
        await asyncio.sleep(0.2)
        calls.append("message done")

    task = asyncio.create_task(message_turn())
    handler, resumed = installed(monkeypatch, session(task=task))
    await handler("sid-2")
    assert calls == ["message done"] and resumed == ["chainlit resumes"] and task.done()


@pytest.mark.parametrize("live", [session(restored=False), session(first=False), session(thread=None)])
async def test_a_first_connection_is_not_held(monkeypatch: pytest.MonkeyPatch, live: Any) -> None:
    """Only a reconnect that will show its thread again waits; a first connection, a new chat or a
    session that never interacted goes straight to Chainlit even while a click runs."""
    handler, calls = installed(monkeypatch, live)

    clicking = await click_running(calls)
    await handler("sid-2")
    assert calls == ["chainlit resumes"]
    await clicking


async def test_the_wait_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn that never ends does not keep the page without its thread: Chainlit resumes at the bound."""
    monkeypatch.setattr(reconnect_resume, "TURN_WAIT_S", 0.2)
    handler, calls = installed(monkeypatch, session())
    async with reconnect_resume.running("s-1"):
        await asyncio.wait_for(handler("sid-2"), 5)
        assert calls == ["chainlit resumes"]


async def test_a_session_back_before_its_thread_was_shown_resumes_that_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stock Chainlit starts a new chat in a restored session without a first interaction; one
    opened on a thread resumes it instead."""
    live = session(first=False)
    seen: list[bool] = []

    async def chainlit_resume(sid: str) -> None:
        seen.append(live.restored)

    sio = SimpleNamespace(handlers={"/": {"connection_successful": chainlit_resume}})
    monkeypatch.setattr(reconnect_resume.WebsocketSession, "get", staticmethod(lambda sid: live))
    reconnect_resume.install(sio)
    await sio.handlers["/"]["connection_successful"]("sid-2")
    assert seen == [False]  # Chainlit's branch `restored and not has_first_interaction` is not taken
    new_chat = session(first=False, thread=None)
    monkeypatch.setattr(reconnect_resume.WebsocketSession, "get", staticmethod(lambda sid: new_chat))
    await sio.handlers["/"]["connection_successful"]("sid-3")
    assert new_chat.restored is True  # a new chat's reconnect is left to Chainlit
