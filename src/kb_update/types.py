"""The records the work graph passes around and checkpoints (plain dicts, JSON-safe).

Plain `TypedDict`s rather than classes: the SQLite checkpointer stores them as-is, a paused
run resumes in another process, and tests can read the state without importing our types.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, TypedDict

UnitStatus = Literal["queued", "retry", "done", "escalated"]


class Hit(TypedDict):
    """One code-search match in the knowledge base."""

    id: str
    path: str  # relative to the KB folder, POSIX separators
    paragraph: int  # 0-based paragraph index in the file
    start: int  # offsets inside that paragraph
    end: int
    text: str  # the matched text, e.g. "$10/month"
    kind: str  # job-defined, e.g. "price" or "derived"
    context: str  # the sentence around the match


class HitDecision(TypedDict):
    """The splitter's verdict on one hit: kept for a unit, or discarded with a reason."""

    hit_id: str
    keep: bool
    reason: str


class Unit(TypedDict):
    """One independent piece of work: one article to update."""

    id: str
    path: str
    title: str
    brief: str  # self-contained one-line instruction
    hits: list[Hit]  # kept hits
    discarded: list[Hit]  # hits in this file the splitter ruled out (may stay as they are)
    scope: list[int]  # 0-based paragraphs the worker may change
    original: str
    sha256: str


class Lesson(TypedDict):
    """A short instruction learnt from repeated failures; joins every brief once approved."""

    id: str
    tag: str  # the failure tag it answers, e.g. "derived-amount"
    text: str
    rule: str | None  # an offline rewrite rule the offline worker understands, if any
    units: list[str]  # the units whose failures motivated it
    status: Literal["proposed", "approved", "rejected"]


class Attempt(TypedDict):
    """One worker call on one unit and what the gates said about its output."""

    unit_id: str
    attempt: int
    round: int
    output: str | None
    gates: dict[str, list[str]]  # gate name → failure messages (empty list = pass)
    skipped: list[str]  # gates not run (a model judge while code gates fail)
    failures: list[str]
    error: str | None
    evidence: list[str]  # the failures this attempt was asked to fix (verbatim)
    lessons: list[str]  # ids of the lessons in its brief
    scope: list[int]
    seconds: float


class UnitState(TypedDict):
    """Per-unit progress, kept separately from every other unit's."""

    status: UnitStatus
    attempts: int
    output: str | None
    last_failure: list[str]
    history: list[Attempt]
    scope: list[int]
    escalation: str | None


class WorkerInput(TypedDict):
    """Everything one worker call sees: its unit, brief, shared decisions, lessons, evidence."""

    unit_id: str
    path: str
    title: str
    brief: str
    article: str
    decisions: dict[str, str]
    lessons: list[Lesson]
    attempt: int
    evidence: list[str]  # previous attempt's gate output, verbatim (empty on a first attempt)
    scope: list[int]  # 0-based paragraphs it may change
    checks: list[str]  # what its output must pass, in words
    discarded: list[Hit]


class Worker(Protocol):
    """Rewrites one unit; returns the full new article text."""

    def __call__(self, task: WorkerInput) -> str: ...


class Gate(Protocol):
    """Decides whether a unit's output passes; returns failure messages (empty = pass)."""

    name: str

    def __call__(self, unit: Unit, text: str) -> list[str]: ...


JsonDict = dict[str, Any]
