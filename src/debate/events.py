"""Progress events a debate run streams to its surfaces (the CLI prints them, the UI renders them).

Nodes emit them through LangGraph's custom stream (`get_stream_writer`), so they are shown live
but never stored in the graph state or in a checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debate.schemas import Team


@dataclass(frozen=True)
class RunStarted:
    motion: str
    rounds: int
    out_dir: Path
    model: str
    resumed: bool = False
    resume_at: tuple[int, str] | None = None  # (round, team) a resumed run continues from


@dataclass(frozen=True)
class RoundStarted:
    round: int
    rounds: int


@dataclass(frozen=True)
class StepStarted:
    """An inner step is about to call the model (for spinners)."""

    round: int
    team: Team
    node: str  # draft | persona | thinking | critique
    attempt: int


@dataclass(frozen=True)
class StepDone:
    """An inner step finished: `summary` is one line, `detail` the full readable output."""

    round: int
    team: Team
    node: str
    attempt: int
    summary: str
    detail: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RetryScheduled:
    round: int
    team: Team
    node: str
    failed_try: int
    max_tries: int
    error: str
    wait_s: float


@dataclass(frozen=True)
class ArgumentPublished:
    round: int
    team: Team
    argument: str
    evidence: list[str]
    attempts: int


@dataclass(frozen=True)
class LoopLocked:
    """The critique rejected every pass up to the cap; `policy` says what happened next."""

    round: int
    team: Team
    attempts: int
    last_feedback: str
    policy: str


@dataclass(frozen=True)
class DebateFinished:
    metrics: dict[str, Any]
    out_dir: Path
    transcript: str  # markdown


@dataclass(frozen=True)
class DebateFailed:
    """The run stopped; files on disk hold everything approved so far; resumable from checkpoint."""

    message: str
    out_dir: Path
    transcript: str
    metrics: dict[str, Any]
    resumable: bool = True


DebateEvent = (
    RunStarted
    | RoundStarted
    | StepStarted
    | StepDone
    | RetryScheduled
    | ArgumentPublished
    | LoopLocked
    | DebateFinished
    | DebateFailed
)
