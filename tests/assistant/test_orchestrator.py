"""The orchestrator's input handling and its NORMAL path on the real demo knowledge base."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.i18n import translate
from assistant.orchestrator import Orchestrator, prepare_question
from assistant.settings import AssistantSettings
from knowledge.settings import KnowledgeSettings
from relais.events import DoneEvent, EngineEvent, ErrorEvent, ModeEvent, SourcesEvent, TextChunk
from relais.retry import RetryPolicy
from relais.settings import Settings
from relais.testing import ScriptedChatModel
from tests.conftest import REPO_ROOT
from tests.demo_index import demo_data_dir


def test_empty_and_huge_questions() -> None:
    empty = prepare_question("   ", "en")
    assert empty.text == "" and empty.notice == translate("ui.empty_question", "en")
    huge = prepare_question("a" * 50_000, "fr")
    assert len(huge.text) == KnowledgeSettings().max_question_chars
    assert huge.notice and str(KnowledgeSettings().max_question_chars) in huge.notice


async def test_empty_knowledge_base_says_how_to_ingest(tmp_path: Path) -> None:
    settings = AssistantSettings().on(Settings(relais_data_dir=tmp_path / "empty"))
    orchestrator = Orchestrator(settings=settings, model=None, model_resolved=True, retry=RetryPolicy.no_wait(1))
    events = [e async for e in orchestrator.process_question("How much is premium?", None)]
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert errors and "relais ingest" in errors[0].message and isinstance(events[-1], DoneEvent)


@pytest.fixture(scope="module")
def demo_kb(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The demo KB, indexed (a copy of the suite's one ingest of it)."""
    return AssistantSettings(relais_intents_file=REPO_ROOT / "data" / "intents" / "examples.yaml").on(Settings(relais_data_dir=demo_data_dir(tmp_path_factory, "orch")))


async def test_offline_normal_answer_with_sources(demo_kb: Settings) -> None:
    orchestrator = Orchestrator(settings=demo_kb, model=None, model_resolved=True)
    events = [e async for e in orchestrator.process_question("How much does the base plan cost?", None)]
    text = "".join(e.text for e in events if isinstance(e, TextChunk))
    sources = next(e for e in events if isinstance(e, SourcesEvent)).sources
    assert "$10" in text and sources[0]["source"] == "plans-and-pricing.md"
    assert EngineEvent("offline") in events


async def test_model_answer_is_one_call_with_context(demo_kb: Settings) -> None:
    model = ScriptedChatModel(["The premium plan costs $25/month [1]."])
    settings = demo_kb.model_copy(update={"enable_orchestrator": True})
    orchestrator = Orchestrator(settings=settings, model=model, model_resolved=True)
    events = [e async for e in orchestrator.process_question("How much is premium?", "NORMAL")]
    assert ModeEvent("NORMAL") in events
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "The premium plan costs $25/month [1]."
    assert len(model.calls) == 1 and "$25" in model.prompt_texts()[0]  # the context reached the model
