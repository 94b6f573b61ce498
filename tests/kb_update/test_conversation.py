"""The knowledge update's chat conversation, its `relais.events` recorded by a fake UI.

Each `conversation()` call is a fresh page (a reload, a second instance): nothing is carried
over but the checkpoint file, which is what the conversation must rebuild its question from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kb_update.conversation import LOG_STEP, PUBLISH_STEP, KbUpdateConversation
from kb_update.graph import Components, EngineConfig
from relais.events import (
    AnsweredEvent,
    Choice,
    InterruptEvent,
    MessageEvent,
    StaleChoiceEvent,
    StepEvent,
)
from relais.settings import clear_settings_caches, get_settings
from tests.kb_update.conftest import snapshot

REQUEST = "The base plan moves from $10/month to $12/month"
DEVELOPER_WORDS = ("unit", "brief", "gate", "splitter", "judge", "worker", "attempt")


class FakeSurface:
    """Records what a chat UI would show of the events; the live question is the last prompt."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.logs: list[tuple[str, list[str], bool]] = []
        self.prompts: list[dict[str, Any]] = []
        self.echoed: list[str] = []
        self.stale_notes = 0
        self.progressed: list[tuple[str, list[str], bool]] = []

    async def say(self, text: str) -> None:
        self.said.append(text)

    async def work_log(self, title: str, lines: list[str], failed: bool) -> None:
        self.logs.append((title, lines, failed))

    async def prompt(self, interrupt_id: str, text: str, choices: list[tuple[str, str]]) -> None:
        self.prompts.append({"id": interrupt_id, "text": text, "choices": choices})

    async def answered(self, text: str | None) -> None:
        if text:
            self.echoed.append(text)

    async def stale(self) -> None:
        self.stale_notes += 1

    async def progress(self, title: str, lines: list[str], done: bool) -> None:
        self.progressed.append((title, list(lines), done))

    @property
    def live(self) -> dict[str, Any]:
        return self.prompts[-1]

    async def show(self, events: Any) -> bool:
        """Show a turn's events; whether it asked a question."""
        asked = False
        async for event in events:
            if isinstance(event, MessageEvent):
                await self.say(event.text)
            elif isinstance(event, StepEvent) and event.key == LOG_STEP:
                assert event.status != "running"  # one collapsed log, sent once the work is done
                await self.work_log(event.title, [line[2:] for line in event.output.split("\n")],
                                    event.status == "failed")
            elif isinstance(event, StepEvent) and event.key == PUBLISH_STEP:
                await self.progress(event.title, [line[2:] for line in event.output.split("\n")],
                                    event.status != "running")
            elif isinstance(event, InterruptEvent):
                asked = True
                choices = [(c.label, c.answer) if isinstance(c, Choice) else (c, c) for c in event.choices]
                await self.prompt(str(event.interrupt_id), event.prompt, choices)
            elif isinstance(event, AnsweredEvent):
                await self.answered(event.echo)
            elif isinstance(event, StaleChoiceEvent):
                await self.stale()
            else:
                raise AssertionError(f"unexpected event {event!r}")
        return asked


class Chat:
    """One page's conversation: each call shows the turn's events on its surface."""

    def __init__(self, conversation: KbUpdateConversation, surface: FakeSurface) -> None:
        self.conversation, self.surface = conversation, surface

    async def show_pending(self) -> bool:
        return await self.surface.show(self.conversation.show_pending())

    async def handle(self, text: str) -> None:
        await self.surface.show(self.conversation.handle(text))

    async def choose(self, value: str, interrupt_id: str | None, label: str) -> None:
        await self.surface.show(self.conversation.choose(value, interrupt_id, label))


@pytest.fixture
def conversation(kb: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("RELAIS_KB_DIR", str(kb))
    clear_settings_caches()
    journal = Path(get_settings().data_dir) / "journal.jsonl"

    def components(job: Any) -> Components:
        parts = Components.offline(job)
        parts.journal = journal
        return parts

    def make(surface: FakeSurface, language: str = "en", thread: str = "thread-1") -> Chat:
        return Chat(KbUpdateConversation(thread, language, components=components, config=EngineConfig(wave_size=3)),
                    surface)

    make.journal = journal  # type: ignore[attr-defined]
    return make


def _publishes(journal: Path) -> int:
    return len(journal.read_text().splitlines()) if journal.exists() else 0


async def _to_publish(chat: Any, surface: FakeSurface, decide: str = "computed") -> None:
    """Answer the lesson, then every item, by clicking; stops at the publish question."""
    while True:
        live = surface.live
        values = [value for _label, value in live["choices"]]
        if {"Publish", "Publier"} & {label for label, _ in live["choices"]}:
            return
        label, value = next((lab, val) for lab, val in live["choices"]
                            if val in ("yes", decide) or (decide == "computed" and val == "computed"))
        before = len(surface.prompts)
        await chat.choose(value, live["id"], label)
        assert len(surface.prompts) == before + 1, surface.said[-2:]


async def test_a_reload_brings_the_question_back_and_one_click_publishes_once(conversation, kb: Path) -> None:
    page = FakeSurface()
    chat = conversation(page)
    await chat.handle(REQUEST)
    assert "Yes, apply it" in [label for label, _ in page.live["choices"]]  # the lesson question
    lesson_id = page.live["id"]

    reloaded = FakeSurface()  # the page is reloaded: a new session, only the checkpoint remains
    assert await conversation(reloaded).show_pending()
    assert reloaded.live["id"] == lesson_id and reloaded.live["text"] == page.live["text"]

    await conversation(reloaded).choose("yes", lesson_id, "Yes, apply it")
    await conversation(page).choose("yes", lesson_id, "Yes, apply it")  # the old tab's button: stale
    assert page.stale_notes == 1
    await _to_publish(conversation(reloaded), reloaded)
    publish = reloaded.live
    assert "## What will change" in publish["text"] and "~~$10/month~~ **$12/month**" in publish["text"]
    for word in DEVELOPER_WORDS:
        assert word not in publish["text"].lower(), word
    assert str(kb) not in publish["text"]

    second = FakeSurface()
    await conversation(second).show_pending()  # a second instance shows the same question
    assert second.live["id"] == publish["id"]
    await conversation(reloaded).choose("yes", publish["id"], "Publish")
    await conversation(second).choose("yes", publish["id"], "Publish")  # double click / other tab
    assert second.stale_notes == 1 and _publishes(conversation.journal) == 1
    assert reloaded.said[-1].startswith("**Published.**")
    assert "$12/month" in (kb / "billing/plans.md").read_text()
    assert not await conversation(FakeSurface()).show_pending()  # answered: no buttons come back


async def test_concurrent_clicks_on_two_instances_resume_once(conversation, kb: Path) -> None:
    page = FakeSurface()
    await conversation(page).handle(REQUEST)
    await _to_publish(conversation(page), page)
    publish_id = page.live["id"]
    tabs = [FakeSurface(), FakeSurface()]
    import asyncio

    await asyncio.gather(*(conversation(tab).choose("yes", publish_id, "Publish") for tab in tabs))
    assert sorted(tab.stale_notes for tab in tabs) == [0, 1]
    assert _publishes(conversation.journal) == 1


@pytest.mark.parametrize("language, lesson_reply, publish_reply", [
    ("en", "yes, add to the brief", "publish"),
    ("fr", "oui", "publier"),
])
async def test_typed_replies_answer_the_pending_question(conversation, kb: Path, language: str, lesson_reply: str,
                                                         publish_reply: str) -> None:
    page = FakeSurface()
    chat = conversation(page, language)
    await chat.handle(REQUEST)
    prompts = len(page.prompts)
    await conversation(FakeSurface(), language).handle(lesson_reply)  # typed after a reload
    assert "journal" not in page.said[-1]
    fresh = FakeSurface()
    await conversation(fresh, language).show_pending()
    assert fresh.live["id"] != page.prompts[prompts - 1]["id"]  # the lesson was answered, not restarted
    while "decision" in fresh.live["text"].lower() or "décision" in fresh.live["text"].lower():
        await conversation(fresh, language).handle("36" if "$30/month" in fresh.live["text"].split("\n")[0]
                                                   else "use the new value")
        await conversation(fresh, language).show_pending()
    await conversation(fresh, language).handle(publish_reply)
    assert _publishes(conversation.journal) == 1
    text = (kb / "billing/plans.md").read_text()
    assert "$12/month" in text


async def test_rejeter_writes_nothing_and_a_new_request_while_waiting_does_not_restart(conversation,
                                                                                        kb: Path) -> None:
    before = snapshot(kb)
    page = FakeSurface()
    chat = conversation(page, "fr")
    await chat.handle("Le forfait Base passe de 10 $/mois à 12 $/mois")
    waiting = page.live["id"]
    await chat.handle(REQUEST)  # a new change while one waits: the question is asked again
    assert "attend encore votre réponse" in page.said[-1] and page.live["id"] == waiting
    await chat.handle("non")
    await _to_publish(chat, page, decide="keep")
    await chat.handle("rejeter")
    assert page.said[-1].startswith("**Non publié.**") and snapshot(kb) == before
    assert _publishes(conversation.journal) == 0


async def test_a_message_without_a_change_gets_the_how_to(conversation) -> None:
    page = FakeSurface()
    await conversation(page).handle("hello there")
    assert "$10/month to $12/month" in page.said[-1] and page.prompts == []


async def test_retries_are_one_neutral_work_log(conversation) -> None:
    page = FakeSurface()
    await conversation(page).handle(REQUEST)
    [(title, lines, failed)] = page.logs
    assert title == "Work log" and failed is False
    assert any(line.startswith("↻") for line in lines) and any(line.startswith("✓") for line in lines)
    assert not any("❌" in line for line in lines)
    json.dumps(page.logs)


def _click_on(page: FakeSurface, until: Any) -> list[tuple[str, str]]:
    """The choices to click (a new value or "yes") until `until(choices)`; at most 15 clicks."""
    for _ in range(15):
        if until(page.live["choices"]):
            return page.live["choices"]
        yield next((lab, val) for lab, val in page.live["choices"] if val in ("yes", "computed"))
    raise AssertionError("the question sought never came")


async def test_type_another_value_is_said_and_the_typed_value_is_followed(conversation, kb: Path) -> None:
    """"Type another value": the click shows as the person's, its buttons go, a hint follows; the
    amount typed next answers the item, and the same amount over another period follows it."""
    (kb / "team.md").write_text("# Team\n\nThe Team plan is priced at four times the Base price.\n")
    (kb / "tiers.md").write_text("# Tiers\n\n| Tier | Per month | Per year |\n|---|---|---|\n"
                                 "| Team | $40/month | $480/year |\n")
    page = FakeSurface()
    chat = conversation(page)
    await chat.handle("The base plan moves from $10/month to $12/month")
    for label, value in _click_on(page, lambda choices: any(v == "type" for _l, v in choices)):
        await chat.choose(value, page.live["id"], label)
    item_prompt = page.live
    assert "$40/month" in item_prompt["text"]
    label = next(lab for lab, val in item_prompt["choices"] if val == "type")
    prompts = len(page.prompts)
    await chat.choose("type", item_prompt["id"], label)
    assert page.echoed[-1] == label and "Type the amount" in page.said[-1]
    assert len(page.prompts) == prompts  # no new question: the person types
    await chat.handle("$45/month")
    assert "$540/year" in page.live["text"] and "you typed" in page.live["text"]  # 45 × 12, not 48 × 12
    for label, value in _click_on(page, lambda choices: "Publish" in {lab for lab, _ in choices}):
        await chat.choose(value, page.live["id"], label)
    assert "four times the Base price" in page.live["text"]  # flagged beside the typed $45
    await chat.choose("yes", page.live["id"], "Publish")
    assert page.progressed and page.progressed[-1][2]  # the publish step, done
    assert any("team.md" in line or "tiers.md" in line for line in page.progressed[-1][1])
    assert "Published." in page.said[-1] and "To check" in page.said[-1]
    assert "| Team | $45/month | $540/year |" in (kb / "tiers.md").read_text()
