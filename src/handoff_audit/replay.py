"""Replay the seed's eight synthetic receipts (one per verdict family) against the classifier.

This tests the decision rule, not any framework's failure rate: each case changes one piece of
evidence of a healthy handoff (route, control, tool message id, context keys, destination start,
result receipt, a legitimate wait) and must move the verdict accordingly. Every case carries its
own `now`, so the waiting case does not expire as the calendar moves on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from handoff_audit.classifier import Verdict, classify
from handoff_audit.receipt import Receipt


@dataclass(frozen=True)
class ReplayCase:
    name: str
    expected: str
    now: datetime
    note: str
    receipt: Receipt


@dataclass(frozen=True)
class ReplayRow:
    case: ReplayCase
    verdict: Verdict

    @property
    def ok(self) -> bool:
        return self.verdict.verdict.value == self.case.expected


@dataclass(frozen=True)
class ReplayReport:
    rows: list[ReplayRow]

    @property
    def passed(self) -> int:
        return sum(row.ok for row in self.rows)

    @property
    def total(self) -> int:
        return len(self.rows)

    @property
    def ok(self) -> bool:
        return self.passed == self.total

    def summary(self) -> str:
        return f"{self.passed}/{self.total} expected verdicts"

    def to_dict(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "total": self.total,
            "cases": [
                {
                    "case": r.case.name,
                    "expected": r.case.expected,
                    **r.verdict.to_dict(),
                    "ok": r.ok,
                }
                for r in self.rows
            ],
        }


def fixture_text() -> str:
    return resources.files("handoff_audit").joinpath("fixtures/seed_cases.jsonl").read_text("utf-8")


def load_cases(path: str | Path | None = None) -> list[ReplayCase]:
    """The shipped fixture, or a JSONL of `{"case","expected","now","receipt"[,"note"]}` lines."""
    text = Path(path).read_text("utf-8") if path is not None else fixture_text()
    cases = []
    for line in text.splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        cases.append(
            ReplayCase(
                name=item["case"],
                expected=item["expected"],
                now=datetime.fromisoformat(item["now"]),
                note=item.get("note", ""),
                receipt=Receipt.model_validate(item["receipt"]),
            )
        )
    return cases


def replay(path: str | Path | None = None) -> ReplayReport:
    """Classify every case at its own `now` and compare with its expected verdict."""
    return ReplayReport(
        [ReplayRow(case, classify(case.receipt, case.now)) for case in load_cases(path)]
    )


def render_table(report: ReplayReport) -> str:
    """A plain-text table (one line per case) ending with the `n/N` summary."""
    header = ("case", "expected", "verdict", "ok", "deciding boundary")
    lines = [
        (
            r.case.name,
            r.case.expected,
            r.verdict.verdict.value,
            "yes" if r.ok else "NO",
            f"{r.verdict.deciding.name}: {r.verdict.deciding.reason}",
        )
        for r in report.rows
    ]
    widths = [max(len(str(row[i])) for row in [header, *lines]) for i in range(4)]
    out = []
    for row in [header, *lines]:
        out.append(
            "  ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(row[:4])) + "  " + row[4]
        )
    out.append(report.summary())
    return "\n".join(out)
