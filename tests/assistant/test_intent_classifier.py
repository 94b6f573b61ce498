"""The one-call classifier: prefix detection, streaming before the reply ends, prompts."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage

from assistant.intent_classifier import IntentType, classify_intent_and_answer, decide_prefix
from assistant.prompts import ESCALATION_INSTRUCTIONS, get_enhanced_system_prompt
from relais.settings import clear_settings_caches
from relais.testing import ScriptedChatModel


async def _collect(gen) -> str:
    return "".join([piece async for piece in gen])


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("ALTER the user wants a booking", IntentType.ALTER),
        ("ALTER", IntentType.ALTER),
        ("ALTER: plan request", IntentType.ALTER),
        ("   \n ALTER needs the coach", IntentType.ALTER),
        ("ALTERNATIVE plans exist: the base plan costs $10/month.", IntentType.NORMAL),
        ("The premium plan costs $25/month [1].", IntentType.NORMAL),
        ("ALTERED schedules are posted weekly.", IntentType.NORMAL),
        ("", IntentType.NORMAL),
    ],
)
async def test_prefix_decides_intent(reply: str, expected: IntentType) -> None:
    model = ScriptedChatModel([reply])
    intent, answer = await classify_intent_and_answer(model, "q", "ctx", "examples", [])
    assert intent is expected
    if expected is IntentType.ALTER:
        assert answer is None
    else:
        assert answer is not None
        assert (await _collect(answer)) == reply
    assert len(model.calls) == 1  # one LLM call, classification and answer together


def test_decide_prefix_waits_while_ambiguous() -> None:
    assert decide_prefix("AL", finished=False) is None
    assert decide_prefix("  ALTER", finished=False) is None
    assert decide_prefix("ALTERN", finished=False) is IntentType.NORMAL
    assert decide_prefix("ALTER ", finished=False) is IntentType.ALTER
    assert decide_prefix("Hello", finished=False) is IntentType.NORMAL
    assert decide_prefix("AL", finished=True) is IntentType.NORMAL


async def test_answer_streams_before_the_reply_ends() -> None:
    """The classifier returns after the first tokens, while the model is still generating."""
    release = asyncio.Event()
    produced: list[str] = []

    class SlowTail(ScriptedChatModel):
        async def astream(self, *args, **kwargs):  # type: ignore[override]
            self._calls.append(list(args[0]))
            for token in ["The ", "base ", "plan "]:
                produced.append(token)
                yield AIMessage(content=token)
            await release.wait()  # the rest only comes once the caller has started reading
            for token in ["costs ", "$10."]:
                produced.append(token)
                yield AIMessage(content=token)

    model = SlowTail([])
    intent, answer = await asyncio.wait_for(classify_intent_and_answer(model, "q", "ctx", "", None), 2)
    assert intent is IntentType.NORMAL and answer is not None
    assert "costs " not in produced  # decided before the end of the reply
    first = await answer.__anext__()
    assert first.startswith("The")
    release.set()
    rest = await _collect(answer)
    assert (first + rest) == "The base plan costs $10."


async def test_prompt_carries_context_examples_and_history() -> None:
    model = ScriptedChatModel(["The answer [1]."])
    history = [{"role": "user", "content": "Hi there"}, {"role": "assistant", "content": "Hello!"}]
    intent, answer = await classify_intent_and_answer(model, "How much?", "[1] Pricing: $10/month", "Q: book a class\nA: ALTER", history)
    await _collect(answer)
    prompt = model.calls[0]
    assert prompt[0].type == "system"
    assert "$10/month" in prompt[0].content and "book a class" in prompt[0].content
    assert [m.type for m in prompt[1:]] == ["human", "ai", "human"]
    assert prompt[-1].content == "How much?"


def test_enhanced_prompt_only_with_orchestrator(monkeypatch: pytest.MonkeyPatch) -> None:
    assert get_enhanced_system_prompt("BASE") == "BASE"
    monkeypatch.setenv("ENABLE_ORCHESTRATOR", "true")
    clear_settings_caches()
    assert get_enhanced_system_prompt("BASE") == "BASE" + ESCALATION_INSTRUCTIONS


def test_custom_intent_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    from assistant.prompts import get_intent_detection_prompt

    monkeypatch.setenv("INTENT_DETECTION_PROMPT", "Classify travel bookings.")
    clear_settings_caches()
    assert get_intent_detection_prompt() == "Classify travel bookings."
