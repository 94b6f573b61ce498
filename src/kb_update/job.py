"""The contract between the generic work graph and one concrete job (e.g. a price change).

The graph knows units, workers, gates, lessons and approvals; a `Job` knows what to search
for, how to judge a hit without a model, how to rewrite offline and what to check. Another
job (rename a product, change a phone number) implements this protocol and reuses the graph.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from kb_update.types import Gate, Hit, Lesson, Unit, WorkerInput


class Job(Protocol):
    """What the engine needs from a concrete job."""

    name: str

    def summary(self) -> str:
        """One line a person (or a model) reads to know the whole job."""
        ...

    def decisions(self) -> dict[str, str]:
        """Shared decisions every worker applies exactly (new value, date, wording...)."""
        ...

    def search(self, kb_dir: Path) -> list[Hit]:
        """Code search over the knowledge base: every candidate the job might touch."""
        ...

    def rule_decision(self, hit: Hit) -> tuple[bool, str]:
        """Offline splitter: keep this hit? and why (a reason is required either way)."""
        ...

    def brief(self, unit: Unit) -> str:
        """A self-contained one-line instruction for a unit (offline splitter)."""
        ...

    def scope(self, unit: Unit) -> list[int]:
        """Paragraphs of the unit a worker may change."""
        ...

    def checks(self) -> list[str]:
        """The checks a worker's output must pass, in words (goes into the worker prompt)."""
        ...

    def offline_rewrite(self, task: WorkerInput) -> str:
        """Deterministic worker used when no model is configured; must use evidence on retries."""
        ...

    def code_gates(self) -> list[Gate]:
        """Gates decided by code, run first on every output."""
        ...

    def offline_judge(self) -> Gate:
        """The code stand-in for the model judge (clearly labelled in its name)."""
        ...

    def judge_question(self) -> str:
        """The single pass/fail question a model judge answers about one article."""
        ...

    def lesson_for(self, tag: str, failures: list[str], units: list[str]) -> Lesson | None:
        """A short lesson for failures sharing `tag` (offline), or None if it is not a brief issue."""
        ...

    def needs_person(self, failure: str) -> bool:
        """Failures a worker must not fix alone (a decision outside the shared decisions)."""
        ...
