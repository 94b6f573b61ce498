"""The rendering decision for an answer with a folded section (`TextChunk.folded`): the answer
message shows the summary; the section becomes a collapsed step sent after the answer (and
before any quick-choice prompt), stored with its output so a reload shows it folded too. The
text kept for the conversation history is the whole answer. Chainlit is replaced by recorders."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from chatbot.ui import render
from relais.events import DoneEvent, InterruptEvent, TextChunk

PLAN = "## Your plan\n" + "".join(f"- Day {i}: squat 3x8\n" for i in range(1, 15))


class Recorder:
    def __init__(self) -> None:
        self.sent: list[Any] = []  # messages and steps, in the order they reached the page


class FakeMessage:
    def __init__(self, recorder: Recorder, content: str = "", author: str = "", **_: Any) -> None:
        self.recorder, self.content, self.author = recorder, content, author
        self.metadata: dict[str, Any] = {}
        self.elements: list[Any] = []

    async def stream_token(self, token: str) -> None:
        self.content += token

    async def send(self) -> None:
        self.recorder.sent.append(self)


class FakeStep:
    def __init__(self, recorder: Recorder, **kwargs: Any) -> None:
        self.recorder, self.kwargs = recorder, kwargs
        self.output, self.created_at, self.start, self.end = "", None, None, None
        self.id = f"step-{len(recorder.sent)}"

    async def send(self) -> None:
        self.recorder.sent.append(self)


@pytest.fixture
def page(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recorder = Recorder()
    fake_cl = SimpleNamespace(
        Message=lambda **kw: FakeMessage(recorder, **kw),
        Step=lambda **kw: FakeStep(recorder, **kw),
        context=SimpleNamespace(current_step=None),
    )
    monkeypatch.setattr(render, "cl", fake_cl)

    async def no_panel() -> None:
        return None

    async def prompt(event: InterruptEvent, language: str = "en") -> None:
        recorder.sent.append(event)

    monkeypatch.setattr(render, "close_source_panel", no_panel)
    monkeypatch.setattr(render, "send_interrupt_prompt", prompt)
    return recorder


async def events(*items: Any):  # type: ignore[no-untyped-def]
    for item in items:
        yield item


async def test_a_folded_section_becomes_a_collapsed_step_after_the_summary(page: Recorder) -> None:
    summary = "**What changed:** knee.\n\n"
    question = InterruptEvent(prompt="Anything else?", choices=["Nothing to add"], interrupt_id="i1")
    renderer = await render.TurnRenderer("en", author="Coach").render(
        events(TextChunk(summary), TextChunk(PLAN, folded="Full plan (updated)"), question, DoneEvent())
    )
    message, step, prompt = page.sent
    assert isinstance(message, FakeMessage) and message.content.startswith(summary.strip())
    assert "## Your plan" not in message.content
    assert isinstance(step, FakeStep) and step.output == PLAN
    assert step.kwargs["name"] == f"{render.FOLDED_ICON} Full plan (updated)" and step.kwargs["type"] == "tool"
    assert step.kwargs["default_open"] is False
    assert step.kwargs["metadata"] == {render.FOLDED_KEY: True, "avatarName": "Coach"}  # the answer's avatar
    assert step.start and step.end  # finished when stored: a reload shows it folded, with its output
    assert prompt is question  # the quick choices come after the plan
    assert renderer.text == summary + PLAN  # the history keeps the whole answer


async def test_plain_text_stays_in_the_message(page: Recorder) -> None:
    await render.TurnRenderer("en").render(events(TextChunk("Hello"), TextChunk(PLAN), DoneEvent()))
    (message,) = page.sent
    assert message.content == "Hello" + PLAN


async def test_a_section_with_nothing_before_it_is_shown_open(page: Recorder) -> None:
    await render.TurnRenderer("en").render(events(TextChunk(PLAN, folded="Full plan (updated)"), DoneEvent()))
    (message,) = page.sent
    assert message.content == PLAN
