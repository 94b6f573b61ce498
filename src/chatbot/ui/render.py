"""The one adapter from typed turn events (`relais.events`) to Chainlit messages, steps and prompts.

Used by every profile: the orchestrator's turns (RAG answers and the external agent relayed over
SSE), the in-process Coach, the Debate and the Knowledge update, so an event looks the same
whichever path it took.
An interrupt becomes a message with quick-choice buttons; free text works too (the next
message resumes the agent), so there is no ask-timeout that could leave a thread stuck.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import chainlit as cl
from chainlit.utils import utc_now

from assistant import i18n
from assistant.modes import ALTER
from chatbot.feedback import COACH, HELP_CENTER, TURN_KEY, turn_record
from chatbot.ui.interrupts import prompt_for
from chatbot.ui.pending import (  # noqa: F401 (CHOICE_ACTION re-exported for app.py)
    CHOICE_ACTION,
    PendingPrompt,
    clear_live_prompt,
    refuse_stale,
    send_pending_prompt,
)
from relais.events import (
    AnsweredEvent,
    ChatEvent,
    DoneEvent,
    EngineEvent,
    ErrorEvent,
    InterruptEvent,
    MessageEvent,
    ModeEvent,
    ReplyKindEvent,
    SourcesEvent,
    StaleChoiceEvent,
    StepEvent,
    TextChunk,
    ToolCallEvent,
)

logger = logging.getLogger(__name__)

FOLDED_KEY = "relais_folded"  # step metadata: a folded section of an answer, not a tool call
# Leads a folded section's step name: public/relais.js drops Chainlit's "Used" before such names
FOLDED_ICON = "📋"


def tool_label(name: str | None, language: str) -> str:
    """A tool step's name in the user's language ("Used workout plan" / "Étape : plan d'entraînement")."""
    label = i18n.translate(f"tool.{name or 'generic'}", language)
    return label if not label.startswith("tool.") else (name or "tool").replace("_", " ")


async def send_tool_step(name: str, output: str) -> None:
    """A finished tool step, sent and stored once with its output. (`async with cl.Step` stores it
    empty, then updates it: two racing writes, and a resumed thread showed the step empty and
    not expandable when the empty write landed last.)"""
    parent = cl.context.current_step
    step = cl.Step(name=name, type="tool", parent_id=parent.id if parent else None)
    step.output = output
    step.start = step.end = step.created_at or utc_now()
    await step.send()


async def send_folded_section(title: str, text: str, author: str) -> None:
    """A section the agent marked `folded` (a long plan after "what changed"), shown under the
    answer as a collapsed step with the answer's avatar: the summary reads first, the plan opens
    on a click. Sent once with its output (like `send_tool_step`) so a reload shows it folded too."""
    parent = cl.context.current_step
    step = cl.Step(name=f"{FOLDED_ICON} {title}", type="tool", parent_id=parent.id if parent else None,
                   show_input=False, default_open=False, metadata={FOLDED_KEY: True, "avatarName": author})
    step.output = text
    step.start = step.end = step.created_at or utc_now()
    await step.send()


async def echo_choice(value: str) -> None:
    """A quick-choice click, shown in the conversation as what the user said."""
    user = cl.user_session.get("user")
    await cl.Message(content=value, type="user_message", author=getattr(user, "identifier", None) or "user").send()


def source_title(source: dict[str, Any]) -> str:
    return str(source.get("title") or source.get("source") or "")


def source_label(index: int, source: dict[str, Any], *, with_file: bool = False) -> str:
    """A cited source's chip: its number and the article's title ("[1] Plans and pricing"); the
    file name only to tell apart two cited articles of the same title (the panel shows it)."""
    title = source_title(source)
    return f"[{index}] {title} ({source.get('source')})" if with_file else f"[{index}] {title}"


def related_label(source: dict[str, Any], language: str) -> str:
    """A "see also" chip: the article's title, with its language when it is not the answer's
    (a French reader is told that "Gym hours" is an English article)."""
    other = source.get("language")
    title = source_title(source)
    if other and other != language:
        return f"{title} ({i18n.translate(f'ui.in_language.{other}', language)})"
    return title


def chip_labels(cited: list[dict[str, Any]], related: list[dict[str, Any]], language: str) -> list[str]:
    """Labels of this answer's chips, cited then related, each unique within the message (a chip
    opens the element of its name: two equal names would open the same excerpt)."""
    titles = [source_title(s) for s in cited]
    labels = [source_label(i, s, with_file=titles.count(source_title(s)) > 1) for i, s in enumerate(cited, 1)]
    for source in related:
        label = related_label(source, language)
        if label in labels:
            label = f"{label} ({source.get('source')})"
        labels.append(label)
    return labels


class TurnRenderer:
    """Renders one turn's events; collects the answer text for the conversation history.

    `steps`: a resumed thread's stored steps, so that its prompt's buttons go back under the stored message; `side_panel`: this
    profile's answers may open the side panel (source chips), which is closed after each turn."""

    def __init__(self, language: str = "en", author: str = "Relais", *, question: str | None = None,
                 channel: str = HELP_CENTER, steps: list[dict[str, Any]] | None = None, side_panel: bool = True) -> None:
        self.language = language
        self.author = author
        self.steps = steps
        self.side_panel = side_panel
        self.live_steps: dict[str, cl.Step] = {}  # StepEvent key → its step, while it runs
        self.shown = False  # the turn showed messages or steps of its own (no answer text needed)
        self.question = question  # kept with the answer (turn record) for feedback export and analytics
        self.channel = channel
        self.sources: list[dict[str, Any]] = []
        self.handoff = False
        self.reply_kind: str | None = None  # e.g. smalltalk: not a knowledge-base miss
        self.message: cl.Message | None = None
        self.text = ""
        self.interrupt: InterruptEvent | None = None
        self.engine: str | None = None
        self.mode: str | None = None
        self.errors: list[str] = []
        self.folded: list[tuple[str, str]] = []  # (title, text): shown collapsed under the answer

    async def _ensure_message(self) -> cl.Message:
        if self.message is None:
            self.message = cl.Message(content="", author=self.author)
        return self.message

    async def handle(self, event: ChatEvent) -> None:
        if isinstance(event, TextChunk):
            message = await self._ensure_message()
            self.text += event.text
            if event.folded:  # kept for the history, shown once the answer is sent
                self.folded.append((event.folded, event.text))
                return
            await message.stream_token(event.text)
        elif isinstance(event, ToolCallEvent):
            await send_tool_step(tool_label(event.name, self.language), event.message)
        elif isinstance(event, SourcesEvent):
            self.sources = list(event.sources)
            await self._attach_sources(event.sources)
        elif isinstance(event, EngineEvent):
            self.engine = event.engine
        elif isinstance(event, ReplyKindEvent):
            self.reply_kind = event.kind
        elif isinstance(event, ModeEvent):
            self.mode = event.mode
            if event.mode == ALTER:
                self.channel, self.handoff = COACH, True
        elif isinstance(event, InterruptEvent):
            self.interrupt = event
        elif isinstance(event, ErrorEvent):
            self.errors.append(event.message)
            message = await self._ensure_message()
            separator = "\n\n" if self.text else ""
            self.text += separator + event.message
            await message.stream_token(separator + "⚠️ " + event.message)
        elif isinstance(event, MessageEvent):
            self.shown = True
            await cl.Message(content=event.text, author=event.author or self.author).send()
        elif isinstance(event, StepEvent):
            self.shown = True
            await self._show_step(event)
        elif isinstance(event, AnsweredEvent):
            await clear_live_prompt()
            if event.echo:
                await echo_choice(event.echo)
        elif isinstance(event, StaleChoiceEvent):
            self.shown = True
            await refuse_stale(self.language, author=self.author)
        elif isinstance(event, DoneEvent):
            pass

    async def _show_step(self, event: StepEvent) -> None:
        """A step shown at once while it runs and updated in place; a finished one is sent once
        with its output (one write: a reload never finds it empty)."""
        step = self.live_steps.pop(event.key, None)
        finished = event.status != "running"
        if step is None:
            step = cl.Step(name=event.title, type=event.kind, default_open=event.open, show_input=False)
            step.output, step.is_error = event.output, event.status == "failed"
            step.start = utc_now()
            if finished:
                step.end = step.start
            await step.send()
        else:
            step.output, step.is_error = event.output, event.status == "failed"
            if finished:
                step.end = utc_now()
            await step.update()
        if not finished:
            self.live_steps[event.key] = step

    async def _attach_sources(self, sources: list[dict[str, Any]]) -> None:
        """This answer's sources as chips that open its excerpts: cited ones numbered as in the
        text, then related articles ("see also"). Elements belong to this message only (Chainlit
        scopes a message's chips by its id); the side panel is closed after each answer (see
        `close_source_panel`), so it never shows another answer's excerpts."""
        if not sources:
            return
        message = await self._ensure_message()
        cited = [s for s in sources if not s.get("related")]
        related = [s for s in sources if s.get("related")]
        names = chip_labels(cited, related, self.language)
        labels, see_also = names[: len(cited)], names[len(cited):]
        for label, source in zip(names, cited + related):
            message.elements.append(  # type: ignore[union-attr]
                cl.Text(name=label, content=f"**{source.get('title')}** — `{source.get('source')}`\n\n{source.get('excerpt', '')}", display="side")
            )
        footer = "\n\n" + i18n.translate("ui.sources", self.language) + " " + ", ".join(labels)
        if see_also:
            footer += "\n\n" + i18n.translate("ui.see_also", self.language) + " " + ", ".join(see_also)
        await message.stream_token(footer)

    async def finish(self) -> None:
        if self.message is None and not (self.folded or self.errors) and (self.interrupt or self.shown):
            # the agent only asks (an approval card first thing), or the turn was its own messages
            # and steps: no empty answer bubble
            if self.side_panel:
                close_source_panel_soon()
            if self.interrupt is not None:
                await self._send_prompt(self.interrupt)
            return
        message = await self._ensure_message()
        if self.folded and not message.content.strip():  # nothing to read first: show the section
            for _, text in self.folded:
                await message.stream_token(text)
            self.folded = []
        # the engine and the mode are the turn record's (message metadata, the admin's analytics), not
        # a line of the answer: a person reads and copies the answer only
        if not message.content and not self.interrupt:
            message.content = i18n.translate("ui.no_answer", self.language)
        message.metadata = {**(message.metadata or {}), TURN_KEY: turn_record(
            question=self.question, channel=self.channel, engine=self.engine, sources=self.sources, handoff=self.handoff,
            failed=bool(self.errors), kind=self.reply_kind, mode=self.mode)}
        await message.send()
        for title, text in self.folded:
            await send_folded_section(title, text, self.author)
        if self.side_panel:
            close_source_panel_soon()
        if self.interrupt is not None:
            await self._send_prompt(self.interrupt)

    async def _send_prompt(self, event: InterruptEvent) -> None:
        """The interrupt's prompt under the turn's author; under its stored message when the thread
        was resumed (once)."""
        if self.steps is None:
            await send_interrupt_prompt(event, self.language, self.author)
            return
        await send_pending_prompt(pending_prompt(event, self.language, self.author), self.steps, persist=False)
        self.steps = None

    async def render(self, events: AsyncIterator[ChatEvent]) -> TurnRenderer:
        async for event in events:
            await self.handle(event)
        await self.finish()
        return self


def pending_prompt(event: InterruptEvent, language: str = "en", author: str = "Agent") -> PendingPrompt:
    """The prompt of an interrupt event, keyed by its interrupt id (one click, one resume), shown
    by what it is (`chatbot.ui.interrupts`: approval card, text prompt, quick choices, JSON).
    Only an agent interrupts, so the prompt is under its author (avatar and badge): the in-process
    coach's "Coach", a hand-off's "Agent"."""
    return prompt_for(event, language, author)


_closing: set[asyncio.Task[None]] = set()  # panel closes under way (a reference keeps each task alive)


def close_source_panel_soon() -> None:
    """`close_source_panel` after the turn: the answer and its chips are already sent, so the turn
    ends (Chainlit's stop button goes) without waiting for the delay; the panel closes at the same
    moment after the answer as before. Under the 50-conversation load (`benchmarks/bench_load.py`)
    that wait was 11 % of a help-center turn. A tab gone meanwhile only misses the close."""
    async def close() -> None:
        try:
            await close_source_panel()
        except Exception:  # noqa: BLE001 - the socket went away: nothing to close
            logger.debug("source panel not closed", exc_info=True)

    task = asyncio.create_task(close())
    _closing.add(task)
    task.add_done_callback(_closing.discard)


async def close_source_panel(delay_s: float = 0.3) -> None:
    """Keep the side panel closed after an answer: it opens only when a source chip is clicked.

    Chainlit 2.12's chat view opens the panel by itself whenever a `display="side"` element
    arrives, listing *every* side element of the conversation under the newest one's name: the
    excerpts of earlier answers stacked under the latest title. Closing it once the answer's
    elements have reached the page (the short delay lets the browser apply them first) leaves
    only the chip click, which opens exactly the clicked excerpt under its own title.
    """
    await asyncio.sleep(delay_s)
    await cl.ElementSidebar.set_elements([])


async def send_interrupt_prompt(event: InterruptEvent, language: str = "en", author: str = "Agent") -> None:
    """The agent's question, with its quick choices as buttons (free text works too)."""
    await send_pending_prompt(pending_prompt(event, language, author))
