"""LLM provider errors (429, 500, timeout) on the chatbot's NORMAL path and in the coach.

Expected: a transient error is retried with backoff (no waits here: each component takes a
`relais.retry.RetryPolicy`, `RetryPolicy.no_wait(n)` in tests) and the turn then succeeds as if nothing happened; when the provider keeps failing the
person gets one clear, localized message — never a traceback or the provider's raw error — and
nothing of the failed turn is kept (the coach thread is exactly as it was before the turn, so
sending the message again stores it once).

Faults come from the one scripted model (`relais.testing.ScriptedChatModel`) and, for the real
provider client, from a local fake of Mistral's HTTP API driven through `ChatMistralAI`.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import aconnect_sse
from langchain_core.messages import BaseMessage, ToolMessage

from assistant.i18n import MESSAGES, translate
from assistant.settings import AssistantSettings
from coach.settings import CoachSettings
from knowledge.settings import KnowledgeSettings
from relais.events import (
    DoneEvent,
    ErrorEvent,
    InterruptEvent,
    ModeEvent,
    SourcesEvent,
    TextChunk,
    ToolCallEvent,
)
from relais.retry import RetryPolicy
from relais.settings import Settings
from relais.testing import ScriptedChatModel, tool_call
from tests.demo_index import cache_root_for, ingested_data_dir
from tests.resilience.fake_mistral import API_KEY, HELP_CENTER_ANSWER, FakeMistral
from tests.servers import serve

ANSWER = "The Base plan costs $10 per month."
QUESTION = {"en": "How much does the base plan cost?", "fr": "Combien coûte l'abonnement de base ?"}
COACH_1 = {"en": "Build muscle, lose fat — suggest a workout plan",
           "fr": "Je veux prendre du muscle et perdre du gras : propose-moi un programme"}
COACH_2 = {"en": "What should I eat to support this workout plan?",
           "fr": "Que dois-je manger pour accompagner ce programme ?"}
MAX_ATTEMPTS = 3
NO_WAIT = RetryPolicy.no_wait(MAX_ATTEMPTS)


# --- provider errors as the SDKs raise them -------------------------------------------------------
def provider_error(kind: str) -> Exception:
    request = httpx.Request("POST", "https://api.mistral.ai/v1/chat/completions")
    if kind == "timeout":
        return httpx.ReadTimeout("the provider did not answer in time", request=request)
    status = int(kind)
    response = httpx.Response(status, request=request, json={"message": f"provider said {status}"})
    return httpx.HTTPStatusError(f"Error response {status} while fetching {request.url}", request=request,
                                 response=response)


class Provider:
    """Script of a provider: queued outcomes first (an exception, or None = behave), then behave.

    Behaving: with a bound tool, call it, then describe its result; without, answer `ANSWER`.
    `down` makes every call fail until cleared.
    """

    def __init__(self, *queue: Exception | None) -> None:
        self.queue = list(queue)
        self.down: Exception | None = None
        self.model = ScriptedChatModel(script=[self], repeat_last=True)

    def __call__(self, messages: list[BaseMessage]) -> Any:
        if self.down is not None:
            return self.down
        if self.queue:
            outcome = self.queue.pop(0)
            if outcome is not None:
                return outcome
        if not self.model.bound_tools:
            return ANSWER
        last = messages[-1]
        if isinstance(last, ToolMessage):
            return f"Here is your {last.name}: {str(last.content)[:120]}"
        return tool_call(self.model.bound_tools[-1], {}, call_id=f"call_{uuid.uuid4().hex[:10]}")


async def collect(events: AsyncIterator[Any]) -> list[Any]:
    return [event async for event in events]


def text_of(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextChunk))


def errors_of(events: list[Any]) -> list[ErrorEvent]:
    return [e for e in events if isinstance(e, ErrorEvent)]


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ingested_data_dir(tmp_path_factory.mktemp("llm-faults") / "data", cache_root_for(tmp_path_factory))


@pytest.fixture(scope="module")
def knowledge_base(kb_dir: Path) -> Any:
    from knowledge.retrieval import KnowledgeBase

    return KnowledgeBase(KnowledgeSettings().on(Settings(relais_data_dir=kb_dir)))


def orchestrator(kb_dir: Path, knowledge_base: Any, model: Any, *, enabled: bool = True) -> Any:
    from assistant.orchestrator import Orchestrator

    settings = AssistantSettings(enable_orchestrator=enabled).on(Settings(relais_data_dir=kb_dir))
    return Orchestrator(settings=settings, model=model, knowledge_base=knowledge_base, model_resolved=True,
                        retry=NO_WAIT)


def _assert_clear_message(event: ErrorEvent, language: str) -> None:
    other = "fr" if language == "en" else "en"
    assert event.message in MESSAGES[language].values(), event.message
    assert event.message not in MESSAGES[other].values()
    for junk in ("Traceback", "HTTPStatusError", "ReadTimeout", "provider said", "api.mistral.ai"):
        assert junk not in event.message


# --- the chatbot's NORMAL path ---------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["429", "500", "timeout"])
@pytest.mark.parametrize("enabled", [True, False], ids=["orchestrator", "pure-rag"])
async def test_normal_turn_retries_provider_errors_then_answers(kb_dir: Path, knowledge_base: Any, kind: str,
                                                                enabled: bool) -> None:
    provider = Provider(provider_error(kind), provider_error(kind))
    history = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]
    events = await collect(orchestrator(kb_dir, knowledge_base, provider.model, enabled=enabled)
                           .process_question(QUESTION["en"], None, conversation_history=history))

    assert not errors_of(events), errors_of(events)
    assert text_of(events) == ANSWER
    assert len(provider.model.calls) == 3  # two failures, then the answer
    assert any(isinstance(e, SourcesEvent) for e in events) and isinstance(events[-1], DoneEvent)
    if enabled:
        assert ModeEvent("NORMAL") in events


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("enabled", [True, False], ids=["orchestrator", "pure-rag"])
async def test_normal_turn_gives_up_with_one_clear_localized_message(kb_dir: Path, knowledge_base: Any,
                                                                    language: str, enabled: bool) -> None:
    provider = Provider()
    provider.down = provider_error("500")
    history = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]
    before = json.dumps(history)
    events = await collect(orchestrator(kb_dir, knowledge_base, provider.model, enabled=enabled)
                           .process_question(QUESTION[language], None, conversation_history=history,
                                             language=language))

    assert len(provider.model.calls) == MAX_ATTEMPTS  # retried, and bounded
    (error,) = errors_of(events)
    _assert_clear_message(error, language)
    assert not text_of(events)  # no half answer
    assert not any(isinstance(e, SourcesEvent) for e in events)
    assert isinstance(events[-1], DoneEvent)
    assert json.dumps(history) == before  # the caller's history is not touched


def product_model(base_url: str, monkeypatch: pytest.MonkeyPatch, **overrides: Any) -> tuple[Any, Settings]:
    """The model exactly as the product builds it (`relais.models.chat_model`), pointed at the fake."""
    from relais.models import chat_model

    monkeypatch.setenv("MISTRAL_BASE_URL", f"{base_url}/v1")  # read by the Mistral client itself
    settings = Settings(mistral_api_key=API_KEY, **overrides)
    return chat_model(settings), settings


@pytest.mark.slow
@pytest.mark.parametrize("faults", [["429", "500"], ["timeout"]], ids=["429-then-500", "timeout"])
async def test_normal_turn_through_the_real_mistral_client(kb_dir: Path, knowledge_base: Any, faults: list[str],
                                                           caplog: pytest.LogCaptureFixture,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.DEBUG)
    fake = FakeMistral(faults=list(faults), hang_s=3.0)
    with serve(fake.app()) as base_url:
        model, _ = product_model(base_url, monkeypatch, llm_timeout_s=1)
        events = await collect(orchestrator(kb_dir, knowledge_base, model).process_question(QUESTION["en"], None))

    assert not errors_of(events), errors_of(events)
    assert text_of(events) == HELP_CENTER_ANSWER
    assert len(fake.requests) == len(faults) + 1
    assert set(fake.authorizations) == {f"Bearer {API_KEY}"}
    assert API_KEY not in caplog.text


# --- the coach ----------------------------------------------------------------------------------------
def coach_settings(tmp_path: Path) -> Settings:
    return Settings(relais_data_dir=tmp_path / "coach-data")


def _ckpt(tmp_path: Path) -> str:
    return str(tmp_path / "checkpoints.db")


async def test_coach_retries_provider_errors_then_answers(tmp_path: Path) -> None:
    from coach.runner import CoachRunner

    provider = Provider(provider_error("429"), None, provider_error("timeout"), provider_error("500"))
    async with CoachRunner.open(model=provider.model, checkpoint_target=_ckpt(tmp_path),
                                settings=coach_settings(tmp_path), retry=NO_WAIT) as runner:
        events = await collect(runner.run_turn("t-retry", COACH_1["en"]))
        history = await runner.history("t-retry")

    assert not errors_of(events), errors_of(events)
    assert [e.name for e in events if isinstance(e, ToolCallEvent)] == ["workout_plan"]
    assert "Here is your workout_plan" in text_of(events)
    assert any(isinstance(e, InterruptEvent) for e in events)
    assert len(provider.model.calls) == 5  # 429, tool call, timeout, 500, reply
    assert [m["content"] for m in history if m["role"] == "user"] == [COACH_1["en"]]


@pytest.mark.parametrize("language", ["en", "fr"])
async def test_coach_gives_up_cleanly_and_leaves_the_thread_as_it_was(tmp_path: Path, language: str) -> None:
    from coach.language import detect_language
    from coach.runner import CoachRunner

    provider = Provider()
    thread = f"t-down-{language}"
    async with CoachRunner.open(model=provider.model, checkpoint_target=_ckpt(tmp_path),
                                settings=coach_settings(tmp_path), retry=NO_WAIT) as runner:
        await collect(runner.run_turn(thread, COACH_1[language]))
        before = (await runner.state(thread), await runner.history(thread))
        assert before[0]["paused"]

        provider.down = provider_error("500")
        failed = await collect(runner.run_turn(thread, COACH_2[language]))
        calls_while_down = len(provider.model.calls) - 2
        after = (await runner.state(thread), await runner.history(thread))

        provider.down = None
        again = await collect(runner.run_turn(thread, COACH_2[language]))
        final = await runner.history(thread)

    (error,) = errors_of(failed)
    assert isinstance(failed[-1], DoneEvent) and not text_of(failed)
    assert detect_language(error.message) == language
    assert "provider said" not in error.message and "HTTPStatusError" not in error.message
    assert calls_while_down == MAX_ATTEMPTS
    def without_id(snapshot: tuple) -> tuple:  # the re-asked question gets a new interrupt id
        state, history = snapshot
        return {k: v for k, v in state.items() if k != "interrupt_id"}, history

    assert without_id(after) == without_id(before), "a failed turn must leave no trace in the coach thread"
    reasked = [e for e in failed if isinstance(e, InterruptEvent)]
    assert [e.interrupt_id for e in reasked] == [after[0]["interrupt_id"]]  # fresh buttons that resume
    assert reasked[0].prompt == before[0]["interrupt"]["prompt"]
    assert not errors_of(again) and any(isinstance(e, InterruptEvent) for e in again)
    assert [m["content"] for m in final if m["role"] == "user"] == [COACH_1[language], COACH_2[language]]


async def test_coach_service_reports_a_failing_provider_and_keeps_the_thread(tmp_path: Path) -> None:
    from assistant.external_agent import ExternalAgentClient
    from coach.runner import CoachRunner
    from coach.service import create_app

    provider = Provider()
    settings = coach_settings(tmp_path)
    ckpt = _ckpt(tmp_path)
    app = create_app(lambda: CoachRunner.open(model=provider.model, checkpoint_target=ckpt, settings=settings,
                                                retry=NO_WAIT),
                     settings=CoachSettings().on(settings))
    body = {"message": COACH_1["en"], "user_id": "alice", "conversation_history": [], "thread_id": "svc-1"}
    with serve(app, ready_path="/health") as base_url:
        async with httpx.AsyncClient(timeout=30) as http:
            async with aconnect_sse(http, "POST", base_url + "/assistant", json=body) as source:
                first = [sse.event async for sse in source.aiter_sse()]
            provider.down = provider_error("429")
            async with aconnect_sse(http, "POST", base_url + "/assistant",
                                    json={**body, "message": COACH_2["en"]}) as source:
                failed = [(sse.event, sse.data) async for sse in source.aiter_sse()]
        client = ExternalAgentClient(AssistantSettings(external_agent_url=base_url).on(Settings(relais_data_dir=tmp_path)))
        relayed = await collect(client.stream(COACH_2["en"], "alice", [], thread_id="svc-1", language="en"))
        await client.aclose()

    assert first[-2:] == ["interrupt", "done"]
    assert [name for name, _ in failed] == ["error", "interrupt", "done"]  # the same question, fresh buttons
    assert "429" not in failed[0][1] and "provider said" not in failed[0][1]
    assert errors_of(relayed) == [ErrorEvent(translate("agent.failed", "en"), code="failed")]
    state, _ = await _read_coach(ckpt, "svc-1")
    assert state["paused"] and state["human_messages"] == 1  # the two failed turns left nothing


async def _read_coach(ckpt: str, thread: str) -> tuple[dict[str, Any], list[dict[str, str]]]:
    from coach.runner import CoachRunner

    async with CoachRunner.open(model=None, checkpoint_target=ckpt) as runner:
        return await runner.state(thread), await runner.history(thread)


@pytest.mark.slow
async def test_coach_through_the_real_mistral_client(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from coach.runner import CoachRunner

    caplog.set_level(logging.DEBUG)
    fake = FakeMistral(faults=["429", "500"])
    with serve(fake.app()) as base_url:
        model, _ = product_model(base_url, monkeypatch, llm_timeout_s=5)
        async with CoachRunner.open(model=model, checkpoint_target=_ckpt(tmp_path),
                                    settings=coach_settings(tmp_path), retry=NO_WAIT) as runner:
            events = await collect(runner.run_turn("t-mistral", COACH_1["en"]))

    assert not errors_of(events), errors_of(events)
    assert [e.name for e in events if isinstance(e, ToolCallEvent)] == ["workout_plan"]
    assert "Here is your plan from workout_plan" in text_of(events)
    assert any(isinstance(e, InterruptEvent) for e in events)
    assert len(fake.requests) == 4  # 429, 500, the tool call, the reply
    assert API_KEY not in caplog.text


# --- one retry budget per call --------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("attempts", [1, 3])
async def test_one_retry_budget_on_the_normal_turn(kb_dir: Path, knowledge_base: Any, attempts: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Timeouts are what the Mistral client would retry on its own: with its retries left on,
    3 configured attempts became 9 requests. The product's settings, the product's policy."""
    from assistant.orchestrator import Orchestrator

    fake = FakeMistral(faults=["timeout"] * 12, hang_s=3.0)
    with serve(fake.app()) as base_url:
        model, settings = product_model(base_url, monkeypatch, llm_timeout_s=1, llm_max_retries=attempts,
                                        relais_data_dir=kb_dir)
        assert model.max_retries == 0
        turn = Orchestrator(settings=AssistantSettings(enable_orchestrator=True).on(settings), model=model,
                            knowledge_base=knowledge_base, model_resolved=True)
        assert turn.retry.max_attempts == attempts
        events = await collect(turn.process_question(QUESTION["en"], None))

    assert [e.code for e in errors_of(events)] == ["model_error"]
    assert len(fake.requests) == attempts


@pytest.mark.slow
async def test_one_retry_budget_in_the_coach(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coach.runner import CoachRunner

    fake = FakeMistral(faults=["timeout"] * 12, hang_s=3.0)
    with serve(fake.app()) as base_url:
        _, settings = product_model(base_url, monkeypatch, llm_timeout_s=1, llm_max_retries=2,
                                    relais_data_dir=tmp_path / "coach-data")
        async with CoachRunner.open(checkpoint_target=_ckpt(tmp_path), settings=settings) as runner:
            events = await collect(runner.run_turn("t-budget", COACH_1["en"]))

    assert len(errors_of(events)) == 1 and not text_of(events)
    assert len(fake.requests) == 2  # LLM_MAX_RETRIES, never LLM_MAX_RETRIES × the client's own retries
