"""Seed 004's names are the product path, not wrappers only tests call: the orchestrator
forwards through `forward_to_external_agent`, `prepare_rag_context` builds the numbered context
the model sees, and `get_enhanced_system_prompt` is applied once, at session start."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from assistant import external_agent
from assistant.orchestrator import Orchestrator, prepare_rag_context
from assistant.prompts import BASE_SYSTEM_PROMPT, ESCALATION_INSTRUCTIONS
from assistant.settings import AssistantSettings
from relais.events import DoneEvent, ErrorEvent, TextChunk
from relais.testing import ScriptedChatModel


@dataclass
class Hit:
    title: str
    text: str
    source: str = "kb.md"
    section: str = ""
    score: float = 1.0


class KB:
    def is_empty(self) -> bool:
        return False

    def search(self, question: str) -> list[Hit]:
        return [Hit("Plans", "Base is $10."), Hit("Hours", "Open 6-22.")]


class Agent:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    async def stream(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append((args, kwargs))
        yield TextChunk("coach says hi")
        yield ErrorEvent("cut", code="interrupted")
        yield DoneEvent()


async def test_alter_threads_forward_through_forward_to_external_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, Any]] = []
    original = external_agent.forward_to_external_agent

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(external_agent, "forward_to_external_agent", spy)
    agent = Agent()
    orchestrator = Orchestrator(settings=AssistantSettings(enable_orchestrator=True), model=None, model_resolved=True,
                                agent_client=agent)
    events = [e async for e in orchestrator.process_question("more reps", "ALTER", thread_id="t1")]
    assert seen and seen[0]["as_events"] is True and seen[0]["client"] is agent
    assert events == [TextChunk("coach says hi"), ErrorEvent("cut", code="interrupted"), DoneEvent()]  # typed, codes kept
    assert agent.calls[0][0][:2] == ("more reps", "chainlit_user")


async def test_the_string_surface_is_still_the_seed_s() -> None:
    agent = Agent()
    out = [s async for s in external_agent.forward_to_external_agent("x", client=agent)]  # type: ignore[arg-type]
    assert out == ["coach says hi", "cut"]


def test_prepare_rag_context_numbers_the_passages() -> None:
    assert prepare_rag_context(KB().search("q")) == "[1] Plans\nBase is $10.\n\n[2] Hours\nOpen 6-22."


@pytest.mark.parametrize("enabled", [True, False])
async def test_the_session_prompt_is_what_the_model_gets(enabled: bool) -> None:
    model = ScriptedChatModel(["Base is $10 [1]."], repeat_last=True)
    orchestrator = Orchestrator(settings=AssistantSettings(enable_orchestrator=enabled), model=model, model_resolved=True,
                                knowledge_base=KB())
    session_prompt = orchestrator.session_system_prompt()
    assert session_prompt.startswith(BASE_SYSTEM_PROMPT)
    assert (ESCALATION_INSTRUCTIONS in session_prompt) is enabled

    [e async for e in orchestrator.process_question("How much is base?", None, system_prompt="SESSION PROMPT")]
    prompt = model.prompt_texts()[-1]
    if not enabled:  # the RAG answer is written under the session's prompt, as given
        assert prompt.startswith("SESSION PROMPT")
    # with the orchestrator on, the one call is classify-and-answer under the intent prompt
    assert "[1] Plans\nBase is $10." in prompt  # prepare_rag_context's numbered block, either way
