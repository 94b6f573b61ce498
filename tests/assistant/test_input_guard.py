"""No hand-off without content: the input guard before intent classification, offline and with
a model. Greetings and thanks get a short friendly reply; junk stays NORMAL (100 % of our junk
set), and no held-out request is ever blocked by the guard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assistant.i18n import translate
from assistant.input_guard import (
    InputGuard,
    assess,
    is_blank,
    looks_like_a_word,
    strip_invisible,
    words_of,
)
from assistant.intent_classifier import IntentType
from assistant.offline_intent import get_input_guard, get_offline_classifier
from assistant.orchestrator import Orchestrator
from assistant.settings import AssistantSettings
from relais.events import ModeEvent, TextChunk
from relais.settings import Settings
from relais.testing import ScriptedChatModel
from tests.conftest import REPO_ROOT
from tests.demo_index import demo_data_dir

DATA = REPO_ROOT / "tests" / "data"


def rows(name: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def test_junk_set_is_all_normal_offline() -> None:
    junk = rows("intents_junk.jsonl")
    assert len(junk) >= 60 and {r["label"] for r in junk} == {"NORMAL"}
    classifier = get_offline_classifier()
    altered = [r["text"] for r in junk if classifier.classify(r["text"]).intent is not IntentType.NORMAL]
    assert altered == []
    assert all(classifier.classify(r["text"]).guard != "content" for r in junk)


def test_the_guard_never_blocks_a_heldout_request() -> None:
    guard = get_input_guard(AssistantSettings())
    blocked = [r["text"] for r in rows("intents_heldout.jsonl") if r["label"] == "ALTER" and not guard.assess(r["text"]).has_content]
    assert blocked == []


@pytest.mark.parametrize(
    ("text", "kind", "language"),
    [
        ("hello", "greeting", "en"), ("Hi there!", "greeting", "en"), ("bonjour", "greeting", "fr"),
        ("Salut 👋", "greeting", "fr"), ("thanks!", "thanks", "en"), ("thank you so much", "thanks", "en"),
        ("merci beaucoup", "thanks", "fr"), ("ok", "thanks", "en"), ("🙂🙂🙂", "empty", None),
        ("?!?", "empty", None), ("12 345", "empty", None), ("<p>&nbsp;</p>", "empty", None),
        ("hmmmm", "low_information", None), ("sdfjkl qwpoe", "low_information", None),
        ("how are you?", "low_information", None),
    ],
)
def test_verdicts(text: str, kind: str, language: str | None) -> None:
    verdict = assess(text)
    assert verdict.kind == kind
    if language:
        assert verdict.language == language


def test_a_greeting_with_a_request_is_content() -> None:
    classifier = get_offline_classifier()
    for text in ("Hello! Can you build me a workout plan for the summer?", "Bonjour, réserve-moi un cours de yoga demain"):
        result = classifier.classify(text)
        assert result.guard == "content" and result.intent is IntentType.ALTER


def test_words_and_word_shapes() -> None:
    assert words_of("<b>re-bonjour</b> https://x.y/z 42") == ["re", "bonjour"]
    assert [w for w in ("hahaha", "zzz", "bcdfgh", "plan", "séance") if looks_like_a_word(w)] == ["plan", "séance"]
    assert InputGuard(["kettlebell"]).assess("kettlebell").has_content  # a known word is content


def test_the_margin_keeps_a_weak_alter_normal(monkeypatch: pytest.MonkeyPatch) -> None:
    classifier = get_offline_classifier()
    text = "Could you tell me about the classes?"
    result = classifier.classify(text)
    monkeypatch.setattr(classifier, "threshold", result.score + 0.01)
    assert classifier.classify(text).intent is IntentType.NORMAL
    monkeypatch.setattr(classifier, "threshold", result.score - 0.01)
    monkeypatch.setattr(classifier, "min_similarity", 1.01)  # no ALTER example that close
    assert classifier.classify(text).intent is IntentType.NORMAL


class NoSearch:
    """A knowledge base that must not be searched."""

    def is_empty(self) -> bool:
        raise AssertionError("a greeting must not reach the knowledge base")

    def search(self, question: str) -> Any:
        raise AssertionError("a greeting must not reach the knowledge base")


@pytest.mark.parametrize(("text", "key", "language"), [("hello", "smalltalk.greeting", "en"),
                                                       ("merci beaucoup !", "smalltalk.thanks", "fr"),
                                                       ("Bonjour", "smalltalk.greeting", "fr")])
@pytest.mark.parametrize("with_model", [False, True], ids=["offline", "model"])
async def test_greetings_get_a_short_reply_and_no_search(tmp_path: Path, text: str, key: str, language: str,
                                                        with_model: bool) -> None:
    model = ScriptedChatModel(["ALTER"]) if with_model else None
    settings = AssistantSettings(enable_orchestrator=True).on(Settings(relais_data_dir=tmp_path))
    orchestrator = Orchestrator(settings=settings, model=model, knowledge_base=NoSearch(), model_resolved=True)
    events = [e async for e in orchestrator.process_question(text, None, language="en")]
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == translate(key, language)
    assert not [e for e in events if isinstance(e, ModeEvent) and e.mode == "ALTER"]
    if model is not None:
        assert model.calls == []


@pytest.fixture(scope="module")
def demo_kb(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The demo KB, indexed (a copy of the suite's one ingest of it)."""
    return AssistantSettings(relais_intents_file=REPO_ROOT / "data" / "intents" / "examples.yaml", enable_orchestrator=True).on(Settings(relais_data_dir=demo_data_dir(tmp_path_factory, "guard")))


@pytest.mark.parametrize("text", ["🙂🙂🙂", "asdfgh qwerty", "<script>alert(1)</script>", "???"])
async def test_junk_never_hands_off_even_when_the_model_would(demo_kb: Settings, text: str) -> None:
    """The model would say ALTER to anything: it is never asked to classify junk."""
    model = ScriptedChatModel(["Sorry, I could not find that in the knowledge base."])
    orchestrator = Orchestrator(settings=demo_kb, model=model, model_resolved=True)
    events = [e async for e in orchestrator.process_question(text, None)]
    assert ModeEvent("NORMAL") in events and ModeEvent("ALTER") not in events
    assert len(model.calls) == 1 and "intent classifier" not in model.prompt_texts()[0]  # answered, not classified


async def test_a_real_request_still_hands_off_with_the_model(demo_kb: Settings) -> None:
    model = ScriptedChatModel(["ALTER the user wants a plan"])

    class Agent:
        async def stream(self, *args: Any, **kwargs: Any) -> Any:
            yield TextChunk("coach here")

    orchestrator = Orchestrator(settings=demo_kb, model=model, model_resolved=True, agent_client=Agent())
    events = [e async for e in orchestrator.process_question("hi! build me a workout plan please", None)]
    assert ModeEvent("ALTER") in events and "intent classifier" in model.prompt_texts()[0]


@pytest.mark.parametrize("text", ["\u200b", " \u200b\u200c\ufeff ", "\u2060\u00ad", "\u3164", "\u2800\n\u200d"])
def test_invisible_characters_alone_are_an_empty_message(text: str) -> None:
    """Issue 29: a zero-width space was sent, answered, and titled a thread "20:10 · "."""
    assert is_blank(text)
    assert assess(text).kind == "empty"


def test_invisible_characters_inside_a_message_are_dropped_not_the_message() -> None:
    assert not is_blank("price\u200b?") and strip_invisible("pri\u200bce") == "price"
    assert strip_invisible("👨\u200d👩\u200d👧") == "👨\u200d👩\u200d👧"  # the joiner draws one emoji
    assert assess("How much does the base\u200b plan cost?").kind == "content"
