"""The "Knowledge update" chat profile's conversation, driven through a recording fake UI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kb_update.graph import Components, EngineConfig
from relais.settings import get_settings

from tests.kb_update.conftest import snapshot

REQUEST = "The base plan moves from $10/month to $12/month"


class FakeSurface:
    """Records what the profile shows; answers approvals from a script (None = timed out)."""

    def __init__(self, answers: list[bool | None]) -> None:
        self.answers = list(answers)
        self.said: list[str] = []
        self.steps: dict[str, dict[str, Any]] = {}
        self.asked: list[str] = []

    async def say(self, text: str) -> None:
        self.said.append(text)

    async def open_step(self, key: str, name: str, brief: str) -> None:
        assert key not in self.steps
        self.steps[key] = {"name": name, "brief": brief, "output": None, "passed": None}

    async def close_step(self, key: str, output: str, passed: bool) -> None:
        self.steps[key].update(output=output, passed=passed)

    async def ask(self, text: str, approve: str, reject: str) -> bool | None:
        self.asked.append(text)
        return self.answers.pop(0)


class DictSession(dict):
    def set(self, key: str, value: Any) -> None:
        self[key] = value


@pytest.fixture
def conversation(kb: Path, monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("chainlit")
    from chatbot.profiles.kb_update import KbUpdateConversation

    monkeypatch.setenv("RELAIS_KB_DIR", str(kb))
    get_settings.cache_clear()
    session = DictSession()

    def make(surface: FakeSurface) -> KbUpdateConversation:
        return KbUpdateConversation(surface, session, components=lambda job: Components.offline(job),
                                    config=EngineConfig(wave_size=3))

    return make


async def test_units_fan_out_as_steps_and_publish_after_approval(conversation, kb: Path) -> None:
    surface = FakeSurface([True, True])
    chat = conversation(surface)
    await chat.start()
    assert "from $10/month to $12/month" in surface.said[0]
    await chat.handle(REQUEST)
    names = sorted(step["name"] for step in surface.steps.values())
    assert "billing/plans.md · attempt 1" in names and "billing/plans.md · attempt 2" in names
    assert len(names) == 7
    first = surface.steps["billing/plans.md#1"]
    assert first["passed"] is False and "[derived-amount]" in first["output"] and "❌ judge" in first["output"]
    assert "$12/month" in first["brief"]
    assert surface.steps["billing/plans.md#2"]["passed"] is True
    assert "Lesson proposed" in surface.asked[0] and "Publish 5 updated article(s)?" in surface.asked[1]
    review = next(text for text in surface.said if text.startswith("## Review"))
    assert "```diff" in review and "+| Base | $12/month | $144/year |" in review
    assert surface.said[-1].startswith("**published**")
    assert "$12/month" in (kb / "billing/plans.md").read_text()


async def test_a_timed_out_approval_writes_nothing_and_can_be_answered_later(conversation, kb: Path) -> None:
    before = snapshot(kb)
    surface = FakeSurface([True, None])  # the lesson is approved, the publish question times out
    chat = conversation(surface)
    await chat.handle(REQUEST)
    assert "Not approved yet" in surface.said[-1] and "nothing was written" in surface.said[-1]
    assert snapshot(kb) == before
    await chat.handle("what now?")
    assert "Reply **approve** or **reject**" in surface.said[-1]
    await chat.handle("approve")  # resumes the paused run from its checkpoint
    assert surface.said[-1].startswith("**published**")
    assert "$144/year" in (kb / "billing/plans.md").read_text()


async def test_reject_writes_nothing(conversation, kb: Path) -> None:
    before = snapshot(kb)
    surface = FakeSurface([True, False])
    await conversation(surface).handle(REQUEST)
    assert surface.said[-1].startswith("**rejected**") and "nothing was written" in surface.said[-1]
    assert snapshot(kb) == before


async def test_a_message_without_a_change_gets_the_how_to(conversation) -> None:
    surface = FakeSurface([])
    await conversation(surface).handle("hello there")
    assert "$10/month to $12/month" in surface.said[-1] and surface.steps == {}
