"""The rendering decision for an answer with a folded section (`TextChunk.folded`): the answer
message shows the summary; the section becomes a collapsed step sent after the answer (and
before any quick-choice prompt), stored with its output so a reload shows it folded too. The
text kept for the conversation history is the whole answer. Chainlit is replaced by recorders."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from chatbot.ui import render
from relais.events import DoneEvent, EngineEvent, InterruptEvent, ModeEvent, SourcesEvent, TextChunk

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
        Text=lambda **kw: SimpleNamespace(**kw),
        context=SimpleNamespace(current_step=None),
    )
    monkeypatch.setattr(render, "cl", fake_cl)

    async def no_panel() -> None:
        return None

    async def prompt(event: InterruptEvent, language: str = "en", author: str = "Agent") -> None:
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


def source(name: str, title: str, **extra: Any) -> dict[str, Any]:
    return {"source": name, "title": title, "excerpt": f"About {title}.", **extra}


async def test_the_engine_and_mode_are_the_answers_metadata_not_its_text(page: Recorder) -> None:
    """Issue 29: "Engine: offline · Mode: help center" ended every answer and was copied with it."""
    await render.TurnRenderer("fr").render(events(
        EngineEvent(engine="offline"), ModeEvent(mode="NORMAL"), TextChunk("Le forfait Base coûte 10 $."), DoneEvent()))
    (message,) = page.sent
    assert message.content == "Le forfait Base coûte 10 $."
    assert "offline" not in message.content and "Moteur" not in message.content and "Mode" not in message.content
    record = message.metadata["relais"]
    assert record["engine"] == "offline" and record["mode"] == "NORMAL"


async def test_source_chips_are_titles_and_see_also_says_another_language(page: Recorder) -> None:
    """Chips read "[1] Plans and pricing" (the file name only to tell two equal titles apart); a
    related article in another language than the answer says so ("Gym hours (en anglais)")."""
    sources = [
        source("plans-and-pricing.md", "Plans and pricing", language="en"),
        source("old/plans-and-pricing.md", "Plans and pricing", language="en"),
        source("student-discount.md", "Student discount", language="en"),
        source("gym-hours.md", "Gym hours", language="en", related=True),
        source("horaires-des-clubs.md", "Horaires des clubs", language="fr", related=True),
    ]
    await render.TurnRenderer("fr").render(events(TextChunk("Réponse [1]."), SourcesEvent(sources=sources), DoneEvent()))
    (message,) = page.sent
    names = [element.name for element in message.elements]
    assert names == [
        "[1] Plans and pricing (plans-and-pricing.md)", "[2] Plans and pricing (old/plans-and-pricing.md)",
        "[3] Student discount", "Gym hours (en anglais)", "Horaires des clubs",
    ]
    assert "Sources : [1] Plans and pricing (plans-and-pricing.md), [2]" in message.content
    assert "Voir aussi : Gym hours (en anglais), Horaires des clubs" in message.content
    assert all(name in message.content for name in names)  # each chip is linked from the text


async def test_an_english_answer_names_a_french_article_as_french(page: Recorder) -> None:
    sources = [source("gym-hours.md", "Gym hours", language="en"),
               source("horaires-des-clubs.md", "Horaires des clubs", language="fr", related=True)]
    await render.TurnRenderer("en").render(events(TextChunk("Open [1]."), SourcesEvent(sources=sources), DoneEvent()))
    (message,) = page.sent
    assert [e.name for e in message.elements] == ["[1] Gym hours", "Horaires des clubs (in French)"]
