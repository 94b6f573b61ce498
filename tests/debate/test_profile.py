"""The "Debate" chat profile, with Chainlit's `cl` replaced by a recorder (what would be shown)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from tests.debate.fakes import Call, DebateScript, factory_for


@dataclass
class Shown:
    kind: str  # message | step
    author: str | None
    content: str
    elements: list[Any] = field(default_factory=list)
    is_error: bool = False


class FakeChainlit:
    """Just enough of `chainlit` for the profile: Message, Step, Text, user_session."""

    def __init__(self) -> None:
        self.shown: list[Shown] = []
        self.user_session = SimpleNamespace(data={})
        self.user_session.get = lambda key, default=None: self.user_session.data.get(key, default)
        self.user_session.set = lambda key, value: self.user_session.data.__setitem__(key, value)
        ui = self

        class Message:
            def __init__(
                self,
                content: str = "",
                author: str | None = None,
                elements: list[Any] | None = None,
                **_: Any,
            ) -> None:
                self.content, self.author, self.elements = content, author, elements or []

            async def send(self) -> Message:
                ui.shown.append(Shown("message", self.author, self.content, self.elements))
                return self

        class Step:
            def __init__(self, name: str = "", type: str = "undefined", **_: Any) -> None:
                self.name, self.output, self.is_error, self.start, self.end = (
                    name,
                    "",
                    False,
                    None,
                    None,
                )
                self.record = Shown("step", name, "")

            async def send(self) -> Step:
                ui.shown.append(self.record)
                return self

            async def update(self) -> None:
                self.record.content, self.record.is_error = self.output, self.is_error

        self.Message, self.Step = Message, Step
        self.Text = lambda **kw: SimpleNamespace(**kw)

    def messages(self, author: str | None = None) -> list[Shown]:
        return [
            s for s in self.shown if s.kind == "message" and (author is None or s.author == author)
        ]


@pytest.fixture
def ui(monkeypatch: pytest.MonkeyPatch) -> Any:
    from chatbot.profiles import debate as profile
    from chatbot.ui import render

    fake = FakeChainlit()
    monkeypatch.setattr(profile, "cl", fake)
    monkeypatch.setattr(render, "cl", fake)  # the one renderer every profile's events go through
    for key, value in {
        "DEBATE_ROUNDS": "2",
        "DEBATE_RETRY_MULTIPLIER": "0",
        "DEBATE_RETRY_WAIT_MIN": "0",
        "DEBATE_RETRY_WAIT_MAX": "0",
        "DEBATE_MAX_RETRIES": "2",
    }.items():
        monkeypatch.setenv(key, value)
    return SimpleNamespace(profile=profile, cl=fake, monkeypatch=monkeypatch)


def use_model(ui: Any, script: DebateScript) -> None:
    ui.monkeypatch.setattr(ui.profile, "model_factory", factory_for(script.model()))


def outside_code_spans(markdown: str) -> str:
    return re.sub(r"`[^`]*`", "", markdown)


async def test_without_a_model_the_profile_explains_and_runs_nothing(ui: Any) -> None:
    await ui.profile.on_chat_start()
    assert ui.cl.shown == []  # the empty chat keeps the profile's welcome, which says it first
    await ui.profile.on_message(SimpleNamespace(content="Cities should ban cars"))
    [hint] = ui.cl.shown
    assert "MISTRAL_API_KEY" in hint.content and "`RELAIS_MODEL=provider:model`" in hint.content
    # Chainlit's markdown reads `word:word` as a directive and drops it: only in code spans
    assert not re.search(r"[A-Za-z]:[A-Za-z]", outside_code_spans(hint.content))
    assert not ui.cl.messages("Pros")


async def test_the_hint_follows_the_users_language(ui: Any) -> None:
    await ui.profile.on_message(SimpleNamespace(content="Les villes devraient interdire les voitures"))
    [hint] = ui.cl.shown
    assert "modèle génératif" in hint.content and "`openai:gpt-4o-mini`" in hint.content
    assert not re.search(r"[A-Za-z]:[A-Za-z]", outside_code_spans(hint.content))


async def test_start_shows_the_graph_picture(ui: Any) -> None:
    use_model(ui, DebateScript())
    await ui.profile.on_chat_start()
    [welcome] = ui.cl.shown
    [picture] = welcome.elements
    assert picture.language == "mermaid" and "pros_critique" in picture.content


async def test_a_motion_becomes_steps_labelled_arguments_and_metrics(ui: Any) -> None:
    def critique(call: Call, n: int) -> Any:
        if call.team == "cons" and call.round == 1 and n == 0:
            return {"is_approved": False, "critique_feedback": "ignores the opponent"}
        return {"is_approved": True, "critique_feedback": "ok"}

    use_model(ui, DebateScript(critique=critique))
    await ui.profile.on_message(SimpleNamespace(content="Cities should ban cars"))

    arguments = [s for s in ui.cl.messages() if s.author in ("Pros", "Cons")]
    assert [(s.author, s.content.split("\n")[0]) for s in arguments] == [
        ("Pros", "pros argument r1 pass 1"),
        ("Cons", "cons argument r1 pass 2"),
        ("Pros", "pros argument r2 pass 1"),
        ("Cons", "cons argument r2 pass 1"),
    ]
    steps = [s for s in ui.cl.shown if s.kind == "step"]
    assert len(steps) == 4 * 4 + 3  # one draft + 3 loop steps per turn, plus Cons's second pass
    rejected = [s for s in steps if s.author.startswith("Cons · critique (round 1, pass 1)")]
    assert (
        rejected
        and "REJECTED" in rejected[0].content
        and "ignores the opponent" in rejected[0].content
    )
    assert any("Logical gaps" in s.content for s in steps if "thinking" in s.author)
    assert "### Metrics" in ui.cl.shown[-1].content and "Loop-lock rate" in ui.cl.shown[-1].content


async def test_a_failed_debate_can_be_resumed_from_the_chat(ui: Any) -> None:
    def dying(call: Call, n: int) -> Any:
        if call.team == "cons" and call.round == 2:
            return RuntimeError("provider down")
        return {"is_approved": True, "critique_feedback": "ok"}

    use_model(ui, DebateScript(critique=dying))
    await ui.profile.on_message(SimpleNamespace(content="Cities should ban cars"))
    assert "Type **/resume**" in ui.cl.shown[-1].content
    assert any(s.kind == "step" and s.is_error for s in ui.cl.shown)

    resumed = DebateScript()
    use_model(ui, resumed)
    await ui.profile.on_message(SimpleNamespace(content="/resume"))
    assert [f"{c.team}_{c.node}" for c in resumed.log] == ["cons_critique"]
    assert [s.author for s in ui.cl.messages() if s.author in ("Pros", "Cons")] == [
        "Pros",
        "Cons",
        "Pros",
        "Cons",
    ]
    assert "### Metrics" in ui.cl.shown[-1].content

    await ui.profile.on_message(SimpleNamespace(content="/resume"))
    assert "no unfinished debate" in ui.cl.shown[-1].content


async def test_a_model_that_cannot_be_built_is_explained_not_crashed(ui: Any) -> None:
    def broken(**kwargs: Any) -> Any:
        raise ImportError("No module named 'langchain_openai'")

    ui.monkeypatch.setattr(ui.profile, "model_factory", broken)
    await ui.profile.on_message(SimpleNamespace(content="Cities should ban cars"))
    [shown] = ui.cl.shown
    assert "cannot be used" in shown.content and "langchain_openai" in shown.content
