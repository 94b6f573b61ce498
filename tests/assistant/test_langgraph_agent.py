"""The LangGraph protocol of the hand-off against a real `langgraph dev` (booking agent + coach):
event mapping, resume rules, pending prompts after a restart, owner checks, errors."""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest

from assistant.langgraph_agent import APPROVAL_KIND, LangGraphAgentClient
from assistant.settings import AssistantSettings
from booking.store import BookingStore
from relais.events import DoneEvent, ErrorEvent, InterruptEvent, TextChunk, ToolCallEvent
from relais.settings import Settings


def _client(url: str, assistant: str = "booking", **kwargs) -> LangGraphAgentClient:
    settings = AssistantSettings(external_agent_url=url, external_agent_protocol="langgraph", external_agent_assistant=assistant, external_agent_read_timeout_s=30)
    return LangGraphAgentClient(settings, **kwargs)


async def _turn(client, text: str, thread: str, user: str = "alice", language: str = "en", **kwargs) -> list:
    return [e async for e in client.stream(text, user, [], thread, language, **kwargs)]


def _text(events: list) -> str:
    return "".join(e.text for e in events if isinstance(e, TextChunk))


def _interrupt(events: list) -> InterruptEvent:
    found = [e for e in events if isinstance(e, InterruptEvent)]
    assert len(found) == 1, events
    return found[0]


@pytest.fixture
def thread() -> str:
    return f"relais-{uuid.uuid4()}"


def _ids(server) -> set[str]:
    return {b.tool_call_id for b in BookingStore(server.booking_db).bookings()}


def _new_rows(server, before: set[str]):
    return [b for b in BookingStore(server.booking_db).bookings() if b.tool_call_id not in before]


async def test_approval_is_one_interrupt_then_one_row(langgraph_server, thread: str) -> None:
    client = _client(langgraph_server.url)
    before = _ids(langgraph_server)
    first = await _turn(client, "Book yoga on Monday at 18:00", thread)
    assert [e.name for e in first if isinstance(e, ToolCallEvent)] == ["book_class"]  # once, not per update
    prompt = _interrupt(first)
    assert prompt.kind == APPROVAL_KIND and prompt.interrupt_id
    assert prompt.payload["action_requests"][0]["args"] == {"activity": "yoga", "day": "monday", "time": "18:00"}
    assert prompt.prompt == "Book yoga on Monday at 18:00."
    assert "Book yoga" not in _text(first)  # the person's words are not echoed back
    assert isinstance(first[-1], DoneEvent)  # generated: the server sends none
    assert _new_rows(langgraph_server, before) == []

    second = await _turn(client, "yes", thread)
    assert _text(second).count("Booked #") == 1  # the message came as tuple and update: shown once
    assert not [e for e in second if isinstance(e, (InterruptEvent, ErrorEvent))]
    assert not [e for e in second if isinstance(e, ToolCallEvent)]  # the approved call is not shown twice
    rows = _new_rows(langgraph_server, before)
    assert [(r.activity, r.day, r.time) for r in rows] == [("yoga", "monday", "18:00")]
    assert (await client.pending(thread, "alice")).event is None
    await client.aclose()


async def test_typed_reject_with_reason_writes_nothing(langgraph_server, thread: str) -> None:
    client = _client(langgraph_server.url)
    before = _ids(langgraph_server)
    _interrupt(await _turn(client, "réserve la boxe samedi", thread))
    reply = await _turn(client, "non : mauvais jour", thread)
    assert "rien n'a été fait" in _text(reply) and "mauvais jour" in _text(reply)
    assert _new_rows(langgraph_server, before) == []
    await client.aclose()


async def test_typed_edit_writes_the_edited_values(langgraph_server, thread: str) -> None:
    client = _client(langgraph_server.url)
    before = _ids(langgraph_server)
    _interrupt(await _turn(client, "book yoga monday 18:00", thread))
    reply = await _turn(client, "edit: activity=pilates, day=tuesday, time=12:15", thread)
    assert "Booked #" in _text(reply) and "pilates, tuesday 12:15" in _text(reply)
    assert [(r.activity, r.day, r.time) for r in _new_rows(langgraph_server, before)] == [("pilates", "tuesday", "12:15")]
    await client.aclose()


async def test_an_unreadable_reply_is_explained_and_nothing_is_sent(langgraph_server, thread: str) -> None:
    client = _client(langgraph_server.url)
    before = _ids(langgraph_server)
    prompt = _interrupt(await _turn(client, "cancel booking #999", thread))
    for bad, says in (("edit: booking_id=2", "not allowed"), ("maybe later", "did not understand")):
        events = await _turn(client, bad, thread)
        errors = [e for e in events if isinstance(e, ErrorEvent)]
        assert len(errors) == 1 and errors[0].code == "invalid_reply" and says in errors[0].message
        assert _interrupt(events).interrupt_id == prompt.interrupt_id  # the same prompt, shown again
    assert (await client.pending(thread, "alice")).event.interrupt_id == prompt.interrupt_id
    assert _new_rows(langgraph_server, before) == []
    await client.aclose()


async def test_a_stale_click_and_a_double_click_resume_once(langgraph_server, thread: str) -> None:
    client = _client(langgraph_server.url)
    before = _ids(langgraph_server)
    prompt = _interrupt(await _turn(client, "book spinning friday 19:00", thread))
    both = await asyncio.gather(
        _turn(client, "approve", thread, interrupt_id=prompt.interrupt_id),
        _turn(client, "approve", thread, interrupt_id=prompt.interrupt_id),
    )
    codes = sorted(next((e.code for e in events if isinstance(e, ErrorEvent)), "ok") for events in both)
    assert codes == ["conflict", "ok"]  # the second is the server's 409 or the stale-id check
    late = await _turn(client, "approve", thread, interrupt_id=prompt.interrupt_id)
    assert [e.code for e in late if isinstance(e, ErrorEvent)] == ["conflict"]
    assert "already" in next(e.message for e in late if isinstance(e, ErrorEvent))
    assert len(_new_rows(langgraph_server, before)) == 1
    await client.aclose()


async def test_the_pending_prompt_survives_a_server_restart(langgraph_server, thread: str) -> None:
    client = _client(langgraph_server.url)
    before = _ids(langgraph_server)
    prompt = _interrupt(await _turn(client, "book swimming sunday 09:30", thread))
    langgraph_server.restart()
    found = await _client(langgraph_server.url).pending(thread, "alice")  # another instance, after the restart
    assert found.supported and found.event is not None
    assert found.event.interrupt_id == prompt.interrupt_id and found.event.kind == APPROVAL_KIND
    await _turn(client, "approve", thread, interrupt_id=prompt.interrupt_id)
    assert len(_new_rows(langgraph_server, before)) == 1
    await client.aclose()


async def test_a_thread_is_refused_to_another_user(langgraph_server, thread: str) -> None:
    client = _client(langgraph_server.url)
    _interrupt(await _turn(client, "book yoga saturday", thread))
    events = await _turn(client, "approve", thread, user="mallory")
    assert [e.code for e in events if isinstance(e, ErrorEvent)] == ["unauthorized"]
    assert not (await client.pending(thread, "mallory")).supported
    assert (await client.pending(thread, "alice")).event is not None
    await client.aclose()


async def test_the_coach_behind_the_langgraph_server(langgraph_server, thread: str) -> None:
    client = _client(langgraph_server.url, assistant="coach")
    first = await _turn(client, "I want a workout plan to build muscle, 3 days a week", thread)
    assert [e.name for e in first if isinstance(e, ToolCallEvent)] == ["workout_plan"]
    assert "3" in _text(first)
    prompt = _interrupt(first)
    assert prompt.kind == "constraints" and "Nothing to add" in prompt.choices
    second = await _turn(client, "I have a knee injury", thread, interrupt_id=prompt.interrupt_id)
    assert "knee" in _text(second).lower()
    assert _interrupt(second).interrupt_id != prompt.interrupt_id
    await client.aclose()


async def test_agent_down_is_the_usual_localised_error(port: int) -> None:
    client = _client(f"http://127.0.0.1:{port}")
    events = await _turn(client, "book yoga", "t-down")
    assert [e.code for e in events if isinstance(e, ErrorEvent)] == ["unreachable"]
    await client.aclose()


async def test_a_5xx_is_the_usual_localised_error() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(503, json={"detail": "down for maintenance"}))
    client = _client("http://agent.test", transport=transport)
    events = await _turn(client, "book yoga", "t-5xx", language="fr")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [e.code for e in errors] == ["http_error"] and "503" in errors[0].message
    await client.aclose()


def test_the_protocol_setting_chooses_the_client(monkeypatch: pytest.MonkeyPatch) -> None:
    from assistant.external_agent import ExternalAgentClient, make_client

    assert isinstance(make_client(AssistantSettings()), ExternalAgentClient)
    langgraph = make_client(AssistantSettings(external_agent_protocol="langgraph", external_agent_assistant="coach", external_agent_api_key="k-123").on(Settings(external_agent_token="t-456")))
    assert isinstance(langgraph, LangGraphAgentClient) and langgraph.assistant == "coach"
    assert langgraph._headers["x-api-key"] == "k-123" and langgraph._headers["Authorization"] == "Bearer t-456"
    with pytest.raises(ValueError):
        AssistantSettings(external_agent_protocol="grpc")
