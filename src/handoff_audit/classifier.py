"""Classify a receipt: six boundaries judged in order, the earliest failure wins.

Why precedence: a graph keeps running after a broken handoff, so later evidence often looks
green (a polished final message, a verifier that passed on the wrong agent's output). Ordering
the boundaries means a later green can never mask an earlier failure. Every boundary is still
evaluated and reported, so the operator sees all the evidence, not just the first break.

Pure Python: no LangGraph, no Chainlit, no clock of its own (`now` is a parameter).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from handoff_audit.receipt import Receipt, as_utc, iso_utc


class VerdictCode(str, Enum):
    """Every verdict the classifier can return (string values, JSON-friendly)."""

    HEALTHY = "HEALTHY"
    ROUTE_REJECTED = "ROUTE_REJECTED"
    STALE_CONTROL = "STALE_CONTROL"
    OPEN_TOOL_PROTOCOL = "OPEN_TOOL_PROTOCOL"
    CONTEXT_INCOMPLETE = "CONTEXT_INCOMPLETE"
    DESTINATION_NOT_STARTED = "DESTINATION_NOT_STARTED"
    FALSE_COMPLETE = "FALSE_COMPLETE"
    WAITING_ON_APPROVAL = "WAITING_ON_APPROVAL"
    UNCERTAIN = "UNCERTAIN"

    def __str__(self) -> str:
        return self.value


BOUNDARIES: tuple[str, ...] = (
    "route",
    "control",
    "tool_protocol",
    "context",
    "destination",
    "result",
)
"""Boundary names in precedence order."""

FAILURE_CODES: dict[str, VerdictCode] = {
    "route": VerdictCode.ROUTE_REJECTED,
    "control": VerdictCode.STALE_CONTROL,
    "tool_protocol": VerdictCode.OPEN_TOOL_PROTOCOL,
    "context": VerdictCode.CONTEXT_INCOMPLETE,
    "destination": VerdictCode.DESTINATION_NOT_STARTED,
}

SAFE_NEXT_MOVE: dict[VerdictCode, str] = {
    VerdictCode.HEALTHY: "Do nothing.",
    VerdictCode.ROUTE_REJECTED: "Block the handoff; restore a declared route.",
    VerdictCode.STALE_CONTROL: "Reconcile persisted state before any retry.",
    VerdictCode.OPEN_TOOL_PROTOCOL: "Repair the history before another model call.",
    VerdictCode.CONTEXT_INCOMPLETE: "Rebuild the minimal handoff contract.",
    VerdictCode.DESTINATION_NOT_STARTED: "Inspect routing and node admission.",
    VerdictCode.FALSE_COMPLETE: "Reopen the task and run the result verifier; do not trust the final message.",
    VerdictCode.WAITING_ON_APPROVAL: "Keep the state; notify the owner and wait for the deadline or a decision.",
    VerdictCode.UNCERTAIN: "Treat as not healthy: the wait lacks an owner, a future deadline or a resume token.",
}
"""The seed's operator guidance per verdict (observation by default, never automatic recovery)."""


@dataclass(frozen=True)
class BoundaryResult:
    """One boundary's judgement. `code` is the verdict this boundary yields when it decides."""

    name: str
    passed: bool
    reason: str
    code: VerdictCode

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "code": self.code.value, "reason": self.reason}


@dataclass(frozen=True)
class Verdict:
    """The verdict of one receipt plus the six boundary results (in precedence order)."""

    operation_id: str
    verdict: VerdictCode
    boundaries: tuple[BoundaryResult, ...]
    now: datetime

    @property
    def healthy(self) -> bool:
        return self.verdict is VerdictCode.HEALTHY

    @property
    def deciding(self) -> BoundaryResult:
        """The boundary that decided the verdict (the first failure, else the result boundary)."""
        for boundary in self.boundaries:
            if not boundary.passed:
                return boundary
        return self.boundaries[-1]

    def boundary(self, name: str) -> BoundaryResult:
        return next(b for b in self.boundaries if b.name == name)

    def to_dict(self) -> dict[str, Any]:
        """`{"operation_id", "verdict", "boundaries"}`: the CLI's and the UI's JSON form."""
        return {
            "operation_id": self.operation_id,
            "verdict": self.verdict.value,
            "boundaries": {b.name: b.to_dict() for b in self.boundaries},
        }


def _fmt(value: object) -> str:
    return "null" if value is None else repr(value)


def check_route(r: Receipt, now: datetime) -> BoundaryResult:
    code = FAILURE_CODES["route"]
    if r.recipient is None:
        return BoundaryResult("route", False, "no intended recipient recorded", code)
    if r.recipient not in r.declared_routes:
        return BoundaryResult(
            "route", False, f"recipient {r.recipient!r} is not a declared route", code
        )
    if r.goto != r.recipient:
        return BoundaryResult(
            "route", False, f"goto {_fmt(r.goto)} differs from recipient {r.recipient!r}", code
        )
    return BoundaryResult("route", True, f"{r.recipient!r} is declared and goto matches", code)


def check_control(r: Receipt, now: datetime) -> BoundaryResult:
    code = FAILURE_CODES["control"]
    if r.sender is None or r.control_before != r.sender:
        return BoundaryResult(
            "control",
            False,
            f"state before names {_fmt(r.control_before)}, sender is {_fmt(r.sender)}",
            code,
        )
    if r.recipient is None or r.control_after != r.recipient:
        return BoundaryResult(
            "control",
            False,
            f"state after names {_fmt(r.control_after)}, recipient is {_fmt(r.recipient)}",
            code,
        )
    return BoundaryResult("control", True, f"control moved {r.sender!r} -> {r.recipient!r}", code)


def check_tool_protocol(r: Receipt, now: datetime) -> BoundaryResult:
    code = FAILURE_CODES["tool_protocol"]
    if r.tool_call_id is None:
        return BoundaryResult("tool_protocol", True, "not a tool-call handoff", code)
    if r.tool_message_call_id is None:
        return BoundaryResult(
            "tool_protocol", False, f"no ToolMessage closes {r.tool_call_id!r}", code
        )
    if r.tool_message_call_id != r.tool_call_id:
        return BoundaryResult(
            "tool_protocol",
            False,
            f"ToolMessage answers {r.tool_message_call_id!r}, not {r.tool_call_id!r}",
            code,
        )
    return BoundaryResult("tool_protocol", True, f"ToolMessage closes {r.tool_call_id!r}", code)


def check_context(r: Receipt, now: datetime) -> BoundaryResult:
    code = FAILURE_CODES["context"]
    present = set(r.context_keys_present)
    missing = [key for key in r.required_context_keys if key not in present]
    if missing:
        return BoundaryResult(
            "context", False, "missing required keys: " + ", ".join(missing), code
        )
    if not r.required_context_keys:
        return BoundaryResult("context", True, "no context keys required", code)
    return BoundaryResult(
        "context", True, f"all {len(r.required_context_keys)} required keys present", code
    )


def check_destination(r: Receipt, now: datetime) -> BoundaryResult:
    code = FAILURE_CODES["destination"]
    start = r.destination_start
    if start is None:
        return BoundaryResult("destination", False, "no destination start recorded", code)
    if start.node != r.recipient:
        return BoundaryResult(
            "destination",
            False,
            f"node {start.node!r} started, not recipient {_fmt(r.recipient)}",
            code,
        )
    return BoundaryResult(
        "destination",
        True,
        f"{start.node!r} started at {iso_utc(start.started_at)} (attempt {start.attempt})",
        code,
    )


def check_result(r: Receipt, now: datetime) -> BoundaryResult:
    """The sixth boundary: task result for `complete`, a legitimate wait for `waiting`."""
    if r.final_state == "complete":
        if r.result is None:
            extra = (
                " (a wait is recorded: the verifier outranks the final message)" if r.wait else ""
            )
            return BoundaryResult(
                "result",
                False,
                "complete without a result verifier" + extra,
                VerdictCode.FALSE_COMPLETE,
            )
        if not r.result.passed:
            return BoundaryResult(
                "result",
                False,
                f"verifier {r.result.verifier!r} failed",
                VerdictCode.FALSE_COMPLETE,
            )
        return BoundaryResult(
            "result", True, f"verifier {r.result.verifier!r} passed", VerdictCode.HEALTHY
        )
    if r.final_state == "waiting":
        wait = r.wait
        if wait is None:
            return BoundaryResult(
                "result", False, "waiting without a wait record", VerdictCode.UNCERTAIN
            )
        problems = [
            f"no {name}"
            for name in ("owner", "reason", "deadline_utc", "resume_token_id")
            if getattr(wait, name) is None
        ]
        if wait.deadline_utc is not None and wait.deadline_utc <= now:
            problems.append(
                f"deadline {iso_utc(wait.deadline_utc)} is not after now {iso_utc(now)}"
            )
        if problems:
            return BoundaryResult("result", False, "; ".join(problems), VerdictCode.UNCERTAIN)
        return BoundaryResult(
            "result",
            True,
            f"waiting on {wait.owner!r} until {iso_utc(wait.deadline_utc)}",  # type: ignore[arg-type]
            VerdictCode.WAITING_ON_APPROVAL,
        )
    return BoundaryResult(
        "result", True, "in progress: the task is still running", VerdictCode.HEALTHY
    )


CHECKS: tuple[Callable[[Receipt, datetime], BoundaryResult], ...] = (
    check_route,
    check_control,
    check_tool_protocol,
    check_context,
    check_destination,
    check_result,
)


def classify(receipt: Receipt | Mapping[str, Any], now: datetime | None = None) -> Verdict:
    """Judge every boundary, then return the earliest failure (or the result boundary's verdict)."""
    r = receipt if isinstance(receipt, Receipt) else Receipt.model_validate(receipt)
    moment = as_utc(now) if now is not None else datetime.now(UTC)
    results = tuple(check(r, moment) for check in CHECKS)
    deciding = next((b for b in results if not b.passed), results[-1])
    return Verdict(
        operation_id=r.operation_id, verdict=deciding.code, boundaries=results, now=moment
    )


__all__ = [
    "BOUNDARIES",
    "FAILURE_CODES",
    "SAFE_NEXT_MOVE",
    "BoundaryResult",
    "Verdict",
    "VerdictCode",
    "classify",
]
