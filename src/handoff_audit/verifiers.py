"""The result boundary's interface: task-specific verifiers, provided by the package that owns the
task (the domain package knows what its constraints exclude; this package knows none of it).

Why an interface: a polished final message is not evidence that the task was done right, and only
the domain can say what "right" is. A verifier reads the turn's outcome (the destination, its reply,
the messages the turn produced, the state after it) and says whether it applies and whether it
passes; the receipt keeps only the verifier names and the boolean (`verify()` builds the
`ResultCheck`), never the text it read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from handoff_audit.builders import utcnow
from handoff_audit.receipt import ResultCheck


@dataclass(frozen=True)
class TurnOutcome:
    """What a verifier may read about one handoff's result (held in memory, never stored)."""

    destination: str
    reply: str
    produced: Sequence[Any] = ()
    state: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class ResultVerifier(Protocol):
    """A named check of what the turn promised; `applies` decides whether it judges this turn."""

    name: str

    def applies(self, outcome: TurnOutcome) -> bool: ...

    def passes(self, outcome: TurnOutcome) -> bool: ...


@dataclass(frozen=True)
class Check:
    """A verifier from two plain functions (`applies` defaults to always)."""

    name: str
    check: Callable[[TurnOutcome], bool]
    when: Callable[[TurnOutcome], bool] = lambda outcome: True

    def applies(self, outcome: TurnOutcome) -> bool:
        return self.when(outcome)

    def passes(self, outcome: TurnOutcome) -> bool:
        return self.check(outcome)


def verify(
    outcome: TurnOutcome,
    verifiers: Iterable[ResultVerifier],
    at: datetime | None = None,
) -> ResultCheck | None:
    """Run the verifiers that apply; the result records `a+b+c` and whether all passed, no text.

    A verifier that raises counts as failed (a broken check must not read as a pass). Returns
    None when none applies (the receipt then has no result: the classifier treats a `complete`
    handoff without one as not verified).
    """
    chosen = [v for v in verifiers if v.applies(outcome)]
    if not chosen:
        return None
    passed = True
    for verifier in chosen:
        try:
            passed = bool(verifier.passes(outcome)) and passed
        except Exception:  # noqa: BLE001 - a crashing verifier is a failed verification
            passed = False
    return ResultCheck(
        verifier="+".join(v.name for v in chosen), passed=passed, checked_at=at or utcnow()
    )


__all__ = ["Check", "ResultVerifier", "TurnOutcome", "verify"]
