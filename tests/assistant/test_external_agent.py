"""The external agent client against a real uvicorn server playing scripted behaviours."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from httpx_sse import ServerSentEvent

from assistant import agent_errors, relais_client
from assistant.external_agent import (
    ExternalAgentClient,
    aclose_client,
    default_retry_policy,
    event_to_marker,
    forward_to_external_agent,
    get_client,
    marker_to_event,
)
from assistant.i18n import MESSAGES, normalise_language, translate
from assistant.settings import AssistantSettings
from relais.events import DoneEvent, ErrorEvent, InterruptEvent, TextChunk, ToolCallEvent
from relais.settings import Settings, clear_settings_caches
from tests.chatbot import agent_behaviours as behaviours
from tests.conftest import REPO_ROOT, free_port
from tests.servers import serve

TOKEN = "s3cret-t0ken-value"
READ_TIMEOUT_S = 0.5
NO_WAIT_RETRY = dataclasses.replace(default_retry_policy(), multiplier=0, wait_min=0, wait_max=0)


@dataclasses.dataclass
class Agent:
    url: str
    app: Any

    def requests_for(self, message: str) -> list[dict[str, Any]]:
        return [r for r in self.app.state.received if r["body"].get("message") == message]


@pytest.fixture(scope="module")
def agent() -> Iterator[Agent]:
    app = behaviours.create_app()
    with serve(app) as url:
        yield Agent(url, app)


class CountingTransport(httpx.AsyncHTTPTransport):
    """The real transport, counting how many times a request was sent."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        return await super().handle_async_request(request)


@pytest.fixture
async def make_client() -> AsyncIterator[Callable[..., ExternalAgentClient]]:
    clients: list[ExternalAgentClient] = []

    def factory(url: str, *, token: str | None = TOKEN, **kwargs: Any) -> ExternalAgentClient:
        settings = AssistantSettings(external_agent_url=url, external_agent_connect_timeout_s=READ_TIMEOUT_S, external_agent_read_timeout_s=READ_TIMEOUT_S).on(Settings(external_agent_token=token))
        kwargs.setdefault("retry", NO_WAIT_RETRY)
        client = ExternalAgentClient(settings, **kwargs)
        clients.append(client)
        return client

    yield factory
    for client in clients:
        await client.aclose()


@pytest.fixture(autouse=True)
async def _close_shared_client() -> AsyncIterator[None]:
    yield
    await aclose_client()


async def collect(client: ExternalAgentClient, question: str = "hi", **kwargs: Any) -> list[Any]:
    kwargs.setdefault("user_id", "u1")
    kwargs.setdefault("conversation_history", [])
    return [event async for event in client.stream(question, **kwargs)]


def texts(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextChunk))


def only_error(events: list[Any]) -> ErrorEvent:
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1, events
    assert events[-1] is errors[0], "the error ends the turn"
    return errors[0]


def closed_port_url() -> str:
    return f"http://127.0.0.1:{free_port()}"


# --- the happy paths ---------------------------------------------------------------------------
async def test_normal_sse_streams_text_and_sends_the_protocol_body(agent, make_client):
    history = [{"role": "user", "content": "earlier"}, {"role": "assistant", "content": "ok"}]
    question = "what about squats? #normal-1"
    events = await collect(
        make_client(agent.url + "/normal"),
        question,
        user_id="alice",
        conversation_history=history,
        thread_id="thread-42",
    )

    assert texts(events) == f"Hello, plain text chunk you said: {question}"
    assert isinstance(events[-1], DoneEvent)
    assert not any(isinstance(e, ErrorEvent) for e in events)
    (received,) = agent.requests_for(question)
    assert received["path"] == "/normal/assistant"
    assert received["body"] == {
        "message": question,
        "user_id": "alice",
        "conversation_history": history,
        "thread_id": "thread-42",
    }
    headers = received["headers"]
    assert headers["authorization"] == f"Bearer {TOKEN}"
    assert "text/event-stream" in headers["accept"] and "application/json" in headers["accept"]
    assert headers["content-type"] == "application/json"


async def test_no_thread_id_and_no_token_are_left_out(agent, make_client):
    question = "no thread #normal-2"
    await collect(make_client(agent.url + "/normal", token=None), question)
    (received,) = agent.requests_for(question)
    assert "thread_id" not in received["body"]
    assert "authorization" not in received["headers"]


async def test_behaviour_chosen_by_message_on_plain_assistant_path(agent, make_client):
    events = await collect(make_client(agent.url + "/"), "tool please")
    assert agent.requests_for("tool please")[0]["path"] == "/assistant"
    assert any(isinstance(e, ToolCallEvent) for e in events)


async def test_tool_call_then_message(agent, make_client):
    events = await collect(make_client(agent.url + "/tool"))
    assert events == [
        ToolCallEvent(behaviours.TOOL_LABEL, name="workout_plan"),
        TextChunk("Here is your plan."),
        DoneEvent(),
    ]


async def test_interrupt_event(agent, make_client):
    events = await collect(make_client(agent.url + "/interrupt"))
    assert events[0] == TextChunk("A 4-day split.")
    interrupt = events[1]
    assert isinstance(interrupt, InterruptEvent)
    assert interrupt.prompt == behaviours.INTERRUPT["prompt"]
    assert interrupt.choices == behaviours.INTERRUPT["choices"]
    assert interrupt.kind == "constraints"
    assert interrupt.payload == behaviours.INTERRUPT
    assert events[2:] == [DoneEvent()]


async def test_a_folded_section_keeps_its_title_and_odd_values_are_plain_text(agent, make_client):
    events = await collect(make_client(agent.url + "/folded"))
    assert events == [
        TextChunk("**What changed:** knee.\n\n"),
        TextChunk(behaviours.FOLDED_PLAN, folded="Full plan (updated)"),
        TextChunk("odd"),
        TextChunk("blank"),
        DoneEvent(),
    ]
    # the seed's string surface (agents' older callers) still gets the whole text
    assert "".join(event_to_marker(e) or "" for e in events).endswith(behaviours.FOLDED_PLAN + "oddblank")


async def test_json_fallback(agent, make_client):
    events = await collect(make_client(agent.url + "/json"), "plain json please")
    assert events == [TextChunk("JSON answer to: plain json please"), DoneEvent()]


async def test_json_fallback_with_interrupt(agent, make_client):
    events = await collect(make_client(agent.url + "/json_interrupt"))
    assert events[0] == TextChunk("Noted.")
    assert isinstance(events[1], InterruptEvent)
    assert events[1].choices == behaviours.INTERRUPT["choices"]
    assert events[2] == DoneEvent()


async def test_slow_but_healthy_stream_is_not_a_timeout(agent, make_client):
    started = time.monotonic()
    events = await collect(make_client(agent.url + "/slow"))
    elapsed = time.monotonic() - started
    assert texts(events) == "".join(behaviours.SLOW_CHUNKS)
    assert isinstance(events[-1], DoneEvent)
    assert elapsed > READ_TIMEOUT_S  # the whole turn outlived the idle timeout, and that is fine


async def test_one_pooled_connection_is_reused(agent, make_client):
    client = make_client(agent.url + "/normal")
    await collect(client, "pool #1")
    first_http = client._http
    await collect(client, "pool #2")
    assert client._http is first_http
    (one,), (two,) = agent.requests_for("pool #1"), agent.requests_for("pool #2")
    # the same client-side port: keep-alive reuse, not a new connection per turn
    assert one["client_port"] == two["client_port"] is not None


async def test_concurrent_turns_do_not_cross_talk(agent, make_client):
    client = make_client(agent.url + "/normal")
    questions = [f"concurrent question {i}" for i in range(20)]
    results = await asyncio.gather(*(collect(client, q) for q in questions))
    for question, events in zip(questions, results):
        assert texts(events).endswith(f"you said: {question}")
        assert isinstance(events[-1], DoneEvent)


# --- failures: each yields a localised error, never raises --------------------------------------
async def test_connection_refused_is_retried_then_reported(make_client):
    transport = CountingTransport()
    events = await collect(make_client(closed_port_url(), transport=transport))
    error = only_error(events)
    assert error.code == "unreachable"
    assert error.message == translate("agent.unreachable", "en")
    assert transport.calls == 3  # the first attempt and two retries


async def test_retry_reaches_an_agent_that_comes_up(make_client):
    port = free_port()

    class StartsServerAfterFirstRefusal(CountingTransport):
        def __init__(self, stack: contextlib.ExitStack) -> None:
            super().__init__()
            self.stack = stack

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            try:
                return await super().handle_async_request(request)
            except httpx.ConnectError:
                if self.calls == 1:
                    self.stack.enter_context(serve(behaviours.create_app(), port=port))
                raise

    with contextlib.ExitStack() as stack:
        transport = StartsServerAfterFirstRefusal(stack)
        client = make_client(f"http://127.0.0.1:{port}/normal", transport=transport)
        events = await collect(client, "retry me")
        await client.aclose()
    assert transport.calls == 2
    assert texts(events).endswith("you said: retry me")


@pytest.mark.parametrize(
    ("behaviour", "code", "status"),
    [("http500", "http_error", 500), ("http429", "busy", 429)],
)
async def test_http_errors_are_localised_and_not_retried(
    agent, make_client, behaviour, code, status
):
    transport = CountingTransport()
    events = await collect(make_client(agent.url + f"/{behaviour}", transport=transport))
    error = only_error(events)
    assert error.code == code
    assert "Traceback" not in error.message and "rate limited" not in error.message
    if code == "http_error":
        assert str(status) in error.message
    assert transport.calls == 1


async def test_http_404_wrong_url(agent, make_client):
    error = only_error(await collect(make_client(agent.url + "/no/such/prefix")))
    assert error.code == "not_found"
    assert error.message == translate("agent.not_found", "en")


async def test_timeout_before_first_byte_is_not_retried(agent, make_client):
    transport = CountingTransport()
    question = "hang #timeout"
    started = time.monotonic()
    events = await collect(make_client(agent.url + "/hang", transport=transport), question)
    elapsed = time.monotonic() - started
    error = only_error(events)
    assert error.code == "timeout"
    assert events == [error]
    assert elapsed < behaviours.HANG_S  # gave up at the read timeout, did not wait the agent out
    assert transport.calls == 1
    assert len(agent.requests_for(question)) == 1  # no duplicated side effect on the agent


async def test_idle_timeout_mid_stream_keeps_partial_text(agent, make_client):
    events = await collect(make_client(agent.url + "/idle"))
    assert events[0] == TextChunk("Working on it")
    assert only_error(events).code == "idle_timeout"


async def test_stream_cut_mid_event(agent, make_client):
    events = await collect(make_client(agent.url + "/cut"))
    assert events[0] == TextChunk("partial answer")
    assert only_error(events).code == "interrupted"
    assert len(events) == 2  # the half event is never shown


async def test_connection_dropped_mid_body(agent, make_client):
    events = await collect(make_client(agent.url + "/crash"))
    assert events[0] == TextChunk("before the crash")
    assert only_error(events).code == "interrupted"


async def test_complete_events_without_done_count_as_cut(agent, make_client):
    events = await collect(make_client(agent.url + "/no_done"))
    assert texts(events) == "complete events, but no done"
    assert only_error(events).code == "interrupted"


async def test_malformed_lines_keep_good_events_and_report_once(agent, make_client):
    events = await collect(make_client(agent.url + "/malformed"))
    assert [e for e in events if not isinstance(e, ErrorEvent)] == [
        TextChunk("still readable"),
        DoneEvent(),
    ]
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [e.code for e in errors] == ["bad_response"]


async def test_event_over_one_megabyte_is_capped(agent, make_client, caplog):
    caplog.set_level(logging.WARNING)
    events = await collect(make_client(agent.url + "/huge"))
    assert events[0] == TextChunk("small first")
    assert only_error(events).code == "too_large"
    # stopped by the streaming guard while reading, not after buffering the whole event
    assert "without a complete event" in caplog.text
    assert all(len(e.text) < 100 for e in events if isinstance(e, TextChunk))


async def test_event_cap_is_configurable(agent, make_client):
    default = await collect(make_client(agent.url + "/medium"))
    assert len(texts(default)) == 50_000 and isinstance(default[-1], DoneEvent)
    capped = await collect(make_client(agent.url + "/medium", max_event_bytes=10_000))
    assert only_error(capped).code == "too_large"
    assert texts(capped) == ""


async def test_compressed_stream_is_decoded(agent, make_client):
    events = await collect(make_client(agent.url + "/gzip"))
    assert texts(events) == "compressed and fine"
    assert isinstance(events[-1], DoneEvent)


async def test_event_cap_counts_inflated_bytes_of_a_compressed_stream(agent, make_client, caplog):
    caplog.set_level(logging.WARNING)
    events = await collect(make_client(agent.url + "/gzip_bomb"))
    assert only_error(events).code == "too_large"
    assert "without a complete event" in caplog.text


async def test_wrong_content_type(agent, make_client):
    error = only_error(await collect(make_client(agent.url + "/html")))
    assert error.code == "bad_response"
    assert "nginx" not in error.message


async def test_broken_json_fallback(agent, make_client):
    assert only_error(await collect(make_client(agent.url + "/json_broken"))).code == "bad_response"


async def test_agent_error_event_is_shown_safely(agent, make_client):
    events = await collect(make_client(agent.url + "/agent_error"))
    assert events[0] == TextChunk("Let me check")
    error = events[1]
    assert isinstance(error, ErrorEvent) and error.code == "failed"
    assert "KeyError" not in error.message and "secret internals" not in error.message
    assert events[2] == DoneEvent()


async def test_invalid_url_configuration_does_not_raise(make_client):
    error = only_error(await collect(make_client("localhost:8081")))
    assert error.code in {"not_found", "unreachable"}


async def test_caller_can_stop_early_and_reuse_the_client(agent, make_client):
    client = make_client(agent.url)  # behaviour chosen by the message's first word
    stream = client.stream("slow but I stop early", "u1", [])
    first = await anext(stream)
    await stream.aclose()
    assert first == TextChunk(behaviours.SLOW_CHUNKS[0])
    events = await collect(client, "tool after stopping")
    assert events[0] == ToolCallEvent(behaviours.TOOL_LABEL, name="workout_plan")
    assert isinstance(events[-1], DoneEvent)


async def test_french_errors(make_client, agent):
    unreachable = only_error(await collect(make_client(closed_port_url()), language="fr-FR"))
    assert unreachable.message == translate("agent.unreachable", "fr")
    assert "injoignable" in unreachable.message
    server_error = only_error(await collect(make_client(agent.url + "/http500"), language="fr"))
    assert server_error.message.startswith("L'agent a renvoyé une erreur (HTTP 500)")
    english = only_error(await collect(make_client(agent.url + "/http500"), language="de"))
    assert english.message.startswith("The agent returned an error (HTTP 500)")


async def test_token_never_logged_nor_shown(agent, make_client, caplog):
    caplog.set_level(logging.DEBUG)
    events = await collect(make_client(agent.url + "/http500"), f"leak {TOKEN}")
    events += await collect(make_client(closed_port_url()), f"leak {TOKEN}")
    assert caplog.records, "failures are logged"
    assert any(
        r.levelno == logging.WARNING and "[http_error]" in r.getMessage() for r in caplog.records
    )
    assert TOKEN not in caplog.text
    assert all(TOKEN not in e.message for e in events if isinstance(e, ErrorEvent))


async def test_url_credentials_are_not_logged(make_client, caplog):
    caplog.set_level(logging.WARNING)
    port = free_port()
    await collect(make_client(f"http://user:hunter22pw@127.0.0.1:{port}"))
    assert "hunter22pw" not in caplog.text
    assert f"127.0.0.1:{port}" in caplog.text


# --- the seed's string surface ------------------------------------------------------------------
def _configure(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("EXTERNAL_AGENT_URL", url)
    monkeypatch.setenv("EXTERNAL_AGENT_TOKEN", TOKEN)
    monkeypatch.setenv("EXTERNAL_AGENT_READ_TIMEOUT_S", str(READ_TIMEOUT_S))
    monkeypatch.setenv("EXTERNAL_AGENT_CONNECT_TIMEOUT_S", str(READ_TIMEOUT_S))
    clear_settings_caches()


async def test_forward_yields_seed_markers(agent, monkeypatch):
    _configure(monkeypatch, agent.url + "/tool")
    out = [s async for s in forward_to_external_agent("plan please", "bob", None, "th-1")]
    assert out == [f"__STEP__:tool:{behaviours.TOOL_LABEL}", "Here is your plan."]
    (received,) = agent.requests_for("plan please")
    assert received["body"] == {
        "message": "plan please",
        "user_id": "bob",
        "conversation_history": [],
        "thread_id": "th-1",
    }
    assert received["headers"]["authorization"] == f"Bearer {TOKEN}"


async def test_forward_default_user_and_interrupt_marker(agent, monkeypatch):
    _configure(monkeypatch, agent.url + "/interrupt")
    out = [s async for s in forward_to_external_agent("constraints?")]
    assert out[0] == "A 4-day split."
    assert out[1].startswith("__INTERRUPT__:")
    payload = json.loads(out[1].removeprefix("__INTERRUPT__:"))
    assert payload["prompt"] == behaviours.INTERRUPT["prompt"]
    assert payload["choices"] == behaviours.INTERRUPT["choices"]
    assert agent.requests_for("constraints?")[0]["body"]["user_id"] == "chainlit_user"
    assert len(out) == 2


async def test_forward_error_is_localised_text(monkeypatch):
    _configure(monkeypatch, closed_port_url())
    monkeypatch.setattr(relais_client, "default_retry_policy", lambda: NO_WAIT_RETRY)
    out = [s async for s in forward_to_external_agent("x", language="fr")]
    assert out == [translate("agent.unreachable", "fr")]


async def test_get_client_is_shared_and_follows_settings(monkeypatch, agent):
    _configure(monkeypatch, agent.url + "/normal")
    first = get_client()
    assert get_client() is first
    assert first.endpoint == agent.url + "/normal/assistant"
    _configure(monkeypatch, agent.url + "/json")
    second = get_client()
    assert second is not first and second.endpoint == agent.url + "/json/assistant"
    await first.aclose()


def test_markers_round_trip():
    interrupt = InterruptEvent("Anything else?", ["Injury", "Vegan"], "constraints", {"x": 1})
    for event in (TextChunk("hello"), ToolCallEvent("workout_plan(goal=fat_loss)"), interrupt):
        marker = event_to_marker(event)
        assert marker is not None and marker_to_event(marker) == event
    assert event_to_marker(DoneEvent()) is None
    assert event_to_marker(ErrorEvent("oops", code="x")) == "oops"
    assert marker_to_event("__INTERRUPT__:{broken") == TextChunk("__INTERRUPT__:{broken")


# --- i18n ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("fr", "fr"),
        ("fr-FR", "fr"),
        ("FR_ca", "fr"),
        ("de-DE,fr;q=0.8,en;q=0.5", "fr"),
        ("en-US,en;q=0.9", "en"),
        ("es", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_normalise_language(raw, expected):
    assert normalise_language(raw) == expected


def test_catalogue_is_complete_in_both_languages():
    assert set(MESSAGES["en"]) == set(MESSAGES["fr"])
    for key in MESSAGES["en"]:
        assert MESSAGES["fr"][key] != MESSAGES["en"][key] or key == "mode.ALTER"


def test_translate_falls_back():
    assert translate("agent.http_error", "fr", status=502).endswith(
        "(HTTP 502). Veuillez réessayer plus tard."
    )
    assert translate("no.such.key", "fr") == "no.such.key"
    assert translate("agent.http_error", "en") == MESSAGES["en"]["agent.http_error"]


def test_every_error_code_has_a_message():
    codes = {
        "unreachable",
        "timeout",
        "idle_timeout",
        "interrupted",
        "http_error",
        "unauthorized",
        "not_found",
        "busy",
        "too_long",
        "bad_response",
        "too_large",
        "failed",
        "unexpected",
    }
    for code in codes:
        assert f"agent.{code}" in MESSAGES["en"]
    for status in (401, 403, 404, 413, 429, 500, 502):
        assert f"agent.{agent_errors.status_code_key(status)}" in MESSAGES["en"]


def test_every_translation_key_used_in_the_chatbot_exists():
    """Keys used by the app's code must not drift from the catalogue."""
    pattern = re.compile(r"""translate\(\s*["']([\w.]+)["']""")
    used = {
        key
        for package in ("chatbot", "assistant", "cli")
        for path in (REPO_ROOT / "src" / package).rglob("*.py")
        for key in pattern.findall(path.read_text(encoding="utf-8"))
    }
    assert "handoff" in MESSAGES["en"]
    missing = {key for key in used for lang in MESSAGES if key not in MESSAGES[lang]}
    assert not missing, f"untranslated keys: {sorted(missing)}"


@pytest.mark.parametrize(
    ("event", "data", "expected"),
    [
        ("message", "just text", TextChunk("just text")),
        ("message", '"a JSON string"', TextChunk("a JSON string")),
        ("message", "{ braces in code }", TextChunk("{ braces in code }")),
        ("message", '{"content": ""}', None),
        ("tool_call", "search(q=x)", ToolCallEvent("search(q=x)")),
        ("interrupt", "Anything else?", InterruptEvent("Anything else?")),
        (
            "interrupt",
            json.dumps({"value": {"question": "Diet?", "options": [{"label": "Vegan"}]}}),
            InterruptEvent(
                "Diet?",
                ["Vegan"],
                "constraints",
                {"question": "Diet?", "options": [{"label": "Vegan"}]},
            ),
        ),
        ("heartbeat", "{}", None),
    ],
)
def test_event_parsing_variants(event, data, expected):
    assert relais_client.parse_event(ServerSentEvent(event=event, data=data)) == expected


@pytest.mark.parametrize(
    ("event", "data"),
    [
        ("message", '{"content": "unterminated'),
        ("message", '{"other": 1}'),
        ("tool_call", "{broken"),
        ("interrupt", '{"choices": ["a"]}'),
        ("interrupt", '{"prompt": "p", "choices": "a"}'),
        ("interrupt", "42"),
    ],
)
def test_malformed_event_data_is_rejected(event, data):
    with pytest.raises(agent_errors.MalformedPayload):
        relais_client.parse_event(ServerSentEvent(event=event, data=data))
