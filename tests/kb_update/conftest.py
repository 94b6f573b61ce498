"""Fixtures: a temporary copy of a small EN/FR help centre, the $10→$12 job, run helpers.

The fixture KB (tests/kb_update/fixture_kb) has, on purpose: annual totals derived from the
old price (billing/annual.md, billing/plans.md, fr/tarifs.md), plain price mentions
(faq.md, getting-started.md), and $10 amounts that are not the price (a gift card, a credit).
"""

from __future__ import annotations

import copy
import hashlib
import shutil
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from kb_update.graph import Components, EngineConfig
from kb_update.price_job import PriceChange, PriceChangeJob
from kb_update.runner import ApprovalNeeded, Finished, KbUpdateRun, RunEvent, drive
from kb_update.types import WorkerInput

FIXTURE_KB = Path(__file__).parent / "fixture_kb"


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """A fresh copy of the fixture knowledge base."""
    return Path(shutil.copytree(FIXTURE_KB, tmp_path / "kb"))


@pytest.fixture
def job() -> PriceChangeJob:
    return PriceChangeJob(PriceChange.parse("$10/month", "$12/month"))


def snapshot(folder: Path) -> dict[str, str]:
    """sha256 of every file under `folder` (to prove nothing was written)."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


class CountingWorker:
    """Wraps a worker and records every task it received, per unit (thread-safe)."""

    def __init__(self, inner: Callable[[WorkerInput], str]) -> None:
        self.inner = inner
        self.tasks: dict[str, list[WorkerInput]] = defaultdict(list)
        self._lock = threading.Lock()

    def __call__(self, task: WorkerInput) -> str:
        with self._lock:
            self.tasks[task["unit_id"]].append(copy.deepcopy(task))
        return self.inner(task)

    def calls(self) -> dict[str, int]:
        return {uid: len(tasks) for uid, tasks in self.tasks.items()}


class Decisions:
    """Scripted human answers, recording what was asked."""

    def __init__(self, lessons: bool = True, publish: bool = True, items: Any = False) -> None:
        self.lessons, self.publish, self.items = lessons, publish, items  # items: False = keep as is
        self.asked: list[ApprovalNeeded] = []

    def __call__(self, approval: ApprovalNeeded) -> Any:
        self.asked.append(approval)
        if approval.kind == "decision":
            return self.items(approval) if callable(self.items) else self.items
        return self.lessons if approval.kind == "lesson" else self.publish

    def kinds(self) -> list[str]:
        return [a.kind for a in self.asked]


def run_job(parts: Components, kb: Path, decide: Callable[[ApprovalNeeded], Any], *,
            config: EngineConfig | None = None, checkpointer: Any = None,
            events: list[RunEvent] | None = None) -> tuple[Finished, KbUpdateRun]:
    """Run a job to the end with scripted approvals; returns the result and the run."""
    run = KbUpdateRun(parts, kb, checkpointer or InMemorySaver(), config or EngineConfig(wave_size=3))
    finished = drive(run, decide, events.append if events is not None else None)
    return finished, run


@pytest.fixture
def offline_run(kb: Path, job: PriceChangeJob) -> Iterator[Callable[..., tuple[Finished, KbUpdateRun]]]:
    def go(decide: Callable[[ApprovalNeeded], Any] | None = None, worker: Any = None,
           config: EngineConfig | None = None, **kwargs: Any) -> tuple[Finished, KbUpdateRun]:
        parts = Components.offline(job, worker=worker, reingest=kwargs.pop("reingest", None))
        return run_job(parts, kb, decide or Decisions(), config=config, **kwargs)

    yield go
