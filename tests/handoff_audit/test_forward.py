"""The orchestrator's NORMAL → ALTER forward: receipts from a real SSE agent over HTTP, the real
external-agent client, and the thread mode read back from a real SQLite Chainlit data layer."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from assistant.settings import AssistantSettings
from handoff_audit.classifier import VerdictCode, classify
from handoff_audit.forward import ForwardAudit, forward_receipt
from handoff_audit.receipt import assert_no_content, content_problems
from handoff_audit.recorder import ReceiptStore
from relais.events import DoneEvent, ErrorEvent, InterruptEvent, TextChunk, ToolCallEvent
from tests.servers import serve

QUESTION = "Build muscle, lose fat — suggest a workout plan"
PROMPT = "Anything I should know? An injury, an allergy, a diet?"
NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)


def _sse(events: list[tuple[str, Any]]) -> EventSourceResponse:
    async def gen():
        for name, data in events:
            yield ServerSentEvent(event=name, data=json.dumps(data))

    return EventSourceResponse(gen())


async def assistant(request: Request) -> Response:
    body = await request.json()
    word = body["message"].split()[0].lower()
    if word == "http500":
        return PlainTextResponse("boom", status_code=500)
    if word == "fail":
        return _sse(
            [
                ("message", {"content": "Starting"}),
                ("error", {"message": "tool backend down"}),
                ("done", {}),
            ]
        )
    return _sse(
        [
            ("tool_call", {"message": "workout_plan(goal=muscle)", "name": "workout_plan"}),
            ("message", {"content": "A 4-day upper/lower split."}),
            (
                "interrupt",
                {"prompt": PROMPT, "choices": ["Injury", "Nothing to add"], "kind": "constraints"},
            ),
            ("done", {}),
        ]
    )


AGENT = Starlette(routes=[Route("/assistant", assistant, methods=["POST"])])


async def _forward(
    url: str,
    question: str,
    *,
    layer: Any = None,
    thread_id: str | None = None,
    user_id: str | None = None,
) -> tuple[ForwardAudit, list[Any]]:
    """What the orchestrator does on an ALTER decision, with the audit around each step."""
    from assistant.external_agent import ExternalAgentClient
    from relais.retry import RetryPolicy

    thread_id = thread_id or str(uuid.uuid4())
    audit = ForwardAudit(thread_id=thread_id, turn=1, session_mode="NORMAL")
    audit.decided("ALTER")
    if layer is not None:
        from chatbot.thread_mode import read_thread_mode, write_alter_mode

        before = await read_thread_mode(layer, thread_id)
        await write_alter_mode(layer, thread_id, user_id)
        audit.persisted(before=before, after=await read_thread_mode(layer, thread_id))
    else:
        audit.persisted(before=None, after="ALTER")
    history: list[dict[str, str]] = []
    audit.sent(message=question, user_id="42", history=history, thread_id=thread_id)
    client = ExternalAgentClient(AssistantSettings(external_agent_url=url), retry=RetryPolicy.no_wait(1))
    try:
        events = [
            e
            async for e in audit.watch(client.stream(question, "42", history, thread_id=thread_id))
        ]
    finally:
        await client.aclose()
    return audit, events


@pytest.mark.slow
async def test_real_alter_forward_is_healthy_and_content_free(tmp_path) -> None:
    from chainlit.user import User

    from chatbot.persistence import create_data_layer
    from relais.settings import get_settings

    layer = await create_data_layer(get_settings())
    user = await layer.create_user(User(identifier="alice"))
    thread_id = str(uuid.uuid4())
    await layer.update_thread(thread_id, user_id=user.id, name="t")
    try:
        with serve(AGENT) as url:
            audit, events = await _forward(
                url, QUESTION, layer=layer, thread_id=thread_id, user_id=user.id
            )
    finally:
        await layer.engine.dispose()

    assert any(isinstance(e, InterruptEvent) for e in events) and isinstance(events[-1], DoneEvent)
    receipt = audit.receipt()
    verdict = classify(receipt, NOW)
    assert verdict.verdict is VerdictCode.HEALTHY, verdict.to_dict()
    assert (receipt.sender, receipt.recipient, receipt.control_before, receipt.control_after) == (
        "rag_assistant",
        "external_agent",
        "rag_assistant",
        "external_agent",
    )
    assert receipt.context_keys_present == ["message", "history", "user_id", "thread_id"]
    assert (
        receipt.result and receipt.result.verifier == "done_without_error" and receipt.result.passed
    )
    store = ReceiptStore()
    store.record(receipt, thread_id)
    assert store.receipts(thread_id) == [receipt]
    assert content_problems(receipt) == []
    assert_no_content(
        receipt, [QUESTION, PROMPT, "A 4-day", "workout_plan(goal", thread_id, str(tmp_path)]
    )


@pytest.mark.slow
async def test_agent_error_event_is_false_complete() -> None:
    with serve(AGENT) as url:
        audit, events = await _forward(url, "fail please")
    assert any(isinstance(e, ErrorEvent) for e in events)
    verdict = classify(audit.receipt(), NOW)
    assert verdict.verdict is VerdictCode.FALSE_COMPLETE
    assert verdict.boundary("destination").passed  # the agent did start


@pytest.mark.slow
async def test_http_500_and_refused_connection_never_started() -> None:
    from tests.conftest import free_port

    with serve(AGENT) as url:
        audit, _ = await _forward(url, "http500 now")
    assert classify(audit.receipt(), NOW).verdict is VerdictCode.DESTINATION_NOT_STARTED
    audit, events = await _forward(f"http://127.0.0.1:{free_port()}", QUESTION)
    assert isinstance(events[-1], ErrorEvent)
    assert classify(audit.receipt(), NOW).verdict is VerdictCode.DESTINATION_NOT_STARTED


def test_mode_not_persisted_is_stale_control() -> None:
    receipt = forward_receipt(
        thread_id="t",
        turn=1,
        session_mode="NORMAL",
        decided_mode="ALTER",
        persisted_before="NORMAL",
        persisted_after="NORMAL",  # update_thread silently failed
        context={"message": QUESTION, "user_id": "42", "history": []},
        events=[TextChunk("hi"), DoneEvent()],
    )
    assert classify(receipt, NOW).verdict is VerdictCode.STALE_CONTROL


def test_normal_decision_forwarded_anyway_is_route_rejected() -> None:
    receipt = forward_receipt(
        thread_id="t",
        turn=1,
        session_mode="NORMAL",
        decided_mode="NORMAL",
        persisted_before="NORMAL",
        persisted_after="ALTER",
        context={"message": QUESTION, "user_id": "42", "history": []},
        events=[TextChunk("hi"), DoneEvent()],
    )
    assert classify(receipt, NOW).verdict is VerdictCode.ROUTE_REJECTED


def test_missing_user_id_is_context_incomplete_and_no_done_is_false_complete() -> None:
    common: dict[str, Any] = {
        "thread_id": "t",
        "turn": 1,
        "session_mode": "NORMAL",
        "decided_mode": "ALTER",
        "persisted_before": None,
        "persisted_after": "ALTER",
    }
    no_user = forward_receipt(
        **common,
        context={"message": QUESTION, "history": []},
        events=[ToolCallEvent("x"), DoneEvent()],
    )
    assert classify(no_user, NOW).verdict is VerdictCode.CONTEXT_INCOMPLETE
    cut = forward_receipt(
        **common,
        context={"message": QUESTION, "user_id": "42", "history": []},
        events=[TextChunk("partial")],
    )
    assert classify(cut, NOW).verdict is VerdictCode.FALSE_COMPLETE


def test_later_alter_turns_keep_control_and_same_turn_keeps_its_id() -> None:
    def receipt(attempt: int):
        return forward_receipt(
            thread_id="t",
            turn=4,
            session_mode="ALTER",
            decided_mode="ALTER",
            persisted_before="ALTER",
            persisted_after="ALTER",
            context={
                "message": "q",
                "user_id": "42",
                "history": [{"role": "user", "content": "x"}],
            },
            events=[TextChunk("ok"), DoneEvent()],
            attempt=attempt,
        )

    first, retry = receipt(1), receipt(2)
    assert classify(first, NOW).verdict is VerdictCode.HEALTHY
    assert first.sender == first.recipient == "external_agent"
    assert first.operation_id == retry.operation_id and (first.attempt, retry.attempt) == (1, 2)
