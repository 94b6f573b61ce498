"""Typed events a turn produces, shared by the agent service, its HTTP client and the UI.

The one turn protocol of Relais: every chat profile (assistant, coach, debate, knowledge update)
yields these and the UI renders them with one renderer. The SSE wire format (`message`,
`tool_call`, `interrupt`, `error`, `done`) is only a boundary encoding of the agent events; inside
Relais code passes these dataclasses around.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union


@dataclass(frozen=True)
class TextChunk:
    """A piece of the answer text, to append to the current message.

    `folded`: this piece is a whole section (e.g. a long plan repeated after a short "what
    changed") that a UI may show collapsed under this title; ignoring it shows the text as usual."""

    text: str
    folded: str | None = None


@dataclass(frozen=True)
class ToolCallEvent:
    """The agent called a tool; `message` is a short human-readable label, e.g. `workout_plan(goal=muscle)`."""

    message: str
    name: str | None = None


@dataclass(frozen=True)
class Choice:
    """One quick choice of a prompt: what it shows and what it answers (`value` None: the label)."""

    label: str
    value: str | None = None

    @property
    def answer(self) -> str:
        return self.value if self.value is not None else self.label


@dataclass(frozen=True)
class InterruptEvent:
    """The agent paused and waits for the user (LangGraph `interrupt()` payload).

    `interrupt_id` is LangGraph's `Interrupt.id`: a click answers that prompt only (one click,
    one resume); None for agents that do not send one."""

    prompt: str
    choices: list[str | Choice] = field(default_factory=list)
    kind: str = "constraints"
    payload: dict[str, Any] = field(default_factory=dict)
    interrupt_id: str | None = None


@dataclass(frozen=True)
class ErrorEvent:
    """Something failed; `message` is safe to show to the user (no secrets, no stack)."""

    message: str
    code: str = "error"


@dataclass(frozen=True)
class DoneEvent:
    """End of the turn."""


@dataclass(frozen=True)
class ModeEvent:
    """The orchestrator decided the thread's mode for this turn (NORMAL or ALTER)."""

    mode: str


@dataclass(frozen=True)
class SourcesEvent:
    """The knowledge-base passages an answer used."""

    sources: list[dict[str, Any]]


@dataclass(frozen=True)
class ReplyKindEvent:
    """The turn is not an answer from the knowledge base (`smalltalk`: a greeting or thanks):
    kept with the answer so that it does not count as a question the knowledge base missed."""

    kind: str


@dataclass(frozen=True)
class EngineEvent:
    """Which engine answered (kept in the answer's metadata, not in its text)."""

    engine: str


@dataclass(frozen=True)
class MessageEvent:
    """A whole message of its own, not part of the streamed answer: a progress note, or one
    participant's contribution (`author`; None: the turn's author)."""

    text: str
    author: str | None = None


@dataclass(frozen=True)
class StepEvent:
    """A piece of work shown as a collapsible step, opened then updated in place by its `key`.

    `status`: running (shown at once, updated later), done or failed (closed; failed shows as an
    error). `open`: shown expanded. `kind`: what does the work, `tool` or `llm`."""

    key: str
    title: str
    output: str = ""
    status: str = "running"
    open: bool = False
    kind: str = "tool"


@dataclass(frozen=True)
class AnsweredEvent:
    """The pending prompt was answered: its buttons go; `echo` is a click, shown as the user's words."""

    echo: str | None = None


@dataclass(frozen=True)
class StaleChoiceEvent:
    """A click answered a prompt that is no longer pending (answered elsewhere): nothing was sent."""


AgentEvent = Union[TextChunk, ToolCallEvent, InterruptEvent, ErrorEvent, DoneEvent]
TurnEvent = Union[MessageEvent, StepEvent, AnsweredEvent, StaleChoiceEvent]
ChatEvent = Union[AgentEvent, ModeEvent, SourcesEvent, EngineEvent, ReplyKindEvent, TurnEvent]
