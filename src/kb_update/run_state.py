"""What one knowledge-update run is made of and keeps: its limits, its pluggable parts, its state."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.language_models import BaseChatModel

from kb_update.gates import ModelJudge
from kb_update.job import Job
from kb_update.publish import Reingest
from kb_update.types import (
    Attempt,
    Gate,
    Hit,
    HitDecision,
    Lesson,
    Unit,
    UnitState,
    Worker,
)
from kb_update.workers import ModelWorker, OfflineWorker
from relais.retry import RetryPolicy

MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class EngineConfig:
    """Limits of one run."""

    max_attempts: int = MAX_ATTEMPTS
    wave_size: int = 4
    lesson_min_units: int = 2
    recursion_limit: int = 200


@dataclass
class Components:
    """The pluggable parts: one job, one worker, the judge, optional models, the re-ingest hook."""

    job: Job
    worker: Worker
    judge: Gate
    judge_is_model: bool = False
    splitter_model: BaseChatModel | None = None
    lesson_model: BaseChatModel | None = None
    reingest: Reingest | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    secrets: tuple[str, ...] = ()  # scrubbed from error text kept in state, reviews and the UI
    journal: Path | None = None  # one JSON line per publish (what was written, when approved)
    lesson_memory: Path | None = None  # lessons a person answered, kept for the next runs

    @property
    def engine(self) -> str:
        return "model" if self.judge_is_model or self.splitter_model is not None else "offline"

    @classmethod
    def offline(cls, job: Job, *, worker: Worker | None = None, reingest: Reingest | None = None) -> Components:
        """Everything offline: rule splitter, the job's deterministic worker and judge stand-in."""
        return cls(job=job, worker=worker or OfflineWorker(job), judge=job.offline_judge(), reingest=reingest)

    @classmethod
    def with_model(cls, job: Job, model: BaseChatModel, *, judge_model: BaseChatModel | None = None,
                   reingest: Reingest | None = None, retry: RetryPolicy | None = None) -> Components:
        """Model splitter, worker, judge and lesson writer (the judge may be a distinct model)."""
        policy = retry or RetryPolicy()
        return cls(
            job=job, worker=ModelWorker(model, policy),
            judge=ModelJudge(judge_model or model, job.judge_question(), policy), judge_is_model=True,
            splitter_model=model, lesson_model=model, reingest=reingest, retry=policy,
        )


class RunState(TypedDict, total=False):
    """The checkpointed state of one run (plain JSON-like data)."""

    kb_dir: str
    job: dict[str, Any]
    engine: str
    hits: list[Hit]
    decisions: list[HitDecision]
    units: dict[str, Unit]
    order: list[str]
    status: dict[str, UnitState]
    round: int
    in_flight: list[str]
    attempts: Annotated[list[Attempt], operator.add]  # reducer: parallel workers append
    lessons: list[Lesson]
    proposals: list[Lesson]
    review: dict[str, Any]
    items: list[dict[str, Any]]  # what is left for a person, decided one by one before publishing
    bases: dict[str, dict[str, Any]]  # touched articles as the run leaves them (+ disk sha)
    decision: str
    outcome: str
    published: dict[str, Any]


class UnitTask(TypedDict):
    """What `Send` hands one worker branch."""

    unit: Unit
    attempt: int
    round: int
    evidence: list[str]
    lessons: list[Lesson]
