"""Make receipts from plain values, so producers (coach, orchestrator) never touch the classifier.

The seed collects each boundary where its evidence becomes knowable: at handoff creation (sender,
intended recipient, contract, tool call id, required keys), after state reduction (control, tool
message), at destination admission (node, start time, attempt), at a wait checkpoint (owner,
reason, deadline, resume token) and at verification (verifier, pass/fail). `ReceiptBuilder`
mirrors those stages; `route_receipt` / `waiting_receipt` are one-call shortcuts.

Ids are opaque hashes: stable for the same inputs (so a retry keeps its operation id) and free of
content (a thread id or checkpoint id never appears in clear).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypedDict, Unpack

from handoff_audit.receipt import DestinationStart, FinalState, Receipt, ResultCheck, Wait, as_utc

_SAFE_ID = re.compile(r"^[\w.@+\-]{1,64}$")


def opaque_id(prefix: str, *parts: object, length: int = 24) -> str:
    """`prefix-<hex>`: a stable hash of the parts that reveals none of them."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()
    return f"{prefix}-{digest[:length]}"


def new_operation_id(thread_id: str, turn: int | str, route_contract: str = "") -> str:
    """Operation id of one handoff: same thread + turn (+ contract) → same id on every attempt."""
    return opaque_id("op", thread_id, turn, route_contract)


def resume_token_id(thread_id: str, checkpoint_id: str | None) -> str | None:
    """Opaque id of the checkpoint a human reply must resume (None when there is no checkpoint)."""
    if not thread_id or not checkpoint_id:
        return None
    return opaque_id("rt", thread_id, checkpoint_id)


def owner_id(user_id: str | None, kind: str = "user") -> str | None:
    """`user:<id>` for a short token-like id, else `user:<hash>` (a display name never leaks)."""
    if user_id is None or not str(user_id).strip():
        return None
    text = str(user_id).strip()
    return (
        f"{kind}:{text}"
        if _SAFE_ID.match(text)
        else opaque_id(kind, text, length=16).replace("-", ":", 1)
    )


def present_keys(context: Mapping[str, Any] | Iterable[str]) -> list[str]:
    """Key names of a context mapping whose value actually arrived (not None, not blank).

    An empty list or dict counts as present: "no constraints yet" is information the
    destination received. Passing an iterable of names returns them as they are.
    """
    if isinstance(context, Mapping):
        return [
            str(key)
            for key, value in context.items()
            if value is not None and not (isinstance(value, str) and not value.strip())
        ]
    return [str(key) for key in context]


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class ReceiptBuilder:
    """Collects one handoff's evidence stage by stage; `build()` returns the immutable receipt."""

    operation_id: str
    route_contract: str
    sender: str | None
    recipient: str | None
    declared_routes: list[str] = field(default_factory=list)
    required_context_keys: list[str] = field(default_factory=list)
    route_rule: str | None = None
    tool_call_id: str | None = None
    goto: str | None = None
    control_before: str | None = None
    control_after: str | None = None
    tool_message_call_id: str | None = None
    context_keys_present: list[str] = field(default_factory=list)
    destination_start: DestinationStart | None = None
    final_state: FinalState = "in_progress"
    result: ResultCheck | None = None
    wait: Wait | None = None

    # 1. handoff creation ---------------------------------------------------------------------
    def routed(self, goto: str | None) -> ReceiptBuilder:
        """Where the graph (or the orchestrator) actually sent control."""
        self.goto = goto
        return self

    # 2. after state reduction ----------------------------------------------------------------
    def control(self, before: str | None, after: str | None) -> ReceiptBuilder:
        self.control_before, self.control_after = before, after
        return self

    def tool(self, call_id: str | None, message_call_id: str | None) -> ReceiptBuilder:
        self.tool_call_id, self.tool_message_call_id = call_id, message_call_id
        return self

    # 3. destination admission ----------------------------------------------------------------
    def context(self, context: Mapping[str, Any] | Iterable[str]) -> ReceiptBuilder:
        """Record which context keys reached the destination (names only, values are dropped)."""
        self.context_keys_present = present_keys(context)
        return self

    def started(self, node: str, at: datetime | None = None, attempt: int = 1) -> ReceiptBuilder:
        """First evidence that `node` began work; a later call for the same attempt is ignored."""
        if self.destination_start is None or self.destination_start.attempt != attempt:
            self.destination_start = DestinationStart(
                node=node, started_at=at or utcnow(), attempt=attempt
            )
        return self

    # 4. waiting checkpoint -------------------------------------------------------------------
    def waiting(
        self,
        *,
        owner: str | None,
        reason: str | None,
        resume_token_id: str | None,
        deadline_utc: datetime | None = None,
        ttl_s: float | None = None,
        now: datetime | None = None,
    ) -> ReceiptBuilder:
        """Pause for a person; the deadline is given or computed as now + ttl_s."""
        if deadline_utc is None and ttl_s is not None:
            deadline_utc = as_utc(now or utcnow()) + timedelta(seconds=ttl_s)
        self.wait = Wait(
            owner=owner, reason=reason, deadline_utc=deadline_utc, resume_token_id=resume_token_id
        )
        self.final_state = "waiting"
        return self

    # 5. task verification --------------------------------------------------------------------
    def verified(self, verifier: str, passed: bool, at: datetime | None = None) -> ReceiptBuilder:
        self.result = ResultCheck(verifier=verifier, passed=passed, checked_at=at or utcnow())
        return self

    def complete(self) -> ReceiptBuilder:
        """The destination says it is done (the verifier, not this claim, decides HEALTHY)."""
        self.final_state = "complete"
        return self

    def build(self) -> Receipt:
        return Receipt(
            operation_id=self.operation_id,
            route_contract=self.route_contract,
            route_rule=self.route_rule,
            sender=self.sender,
            recipient=self.recipient,
            declared_routes=list(self.declared_routes),
            goto=self.goto,
            control_before=self.control_before,
            control_after=self.control_after,
            tool_call_id=self.tool_call_id,
            tool_message_call_id=self.tool_message_call_id,
            required_context_keys=list(self.required_context_keys),
            context_keys_present=list(self.context_keys_present),
            destination_start=self.destination_start,
            final_state=self.final_state,
            result=self.result,
            wait=self.wait,
        )


class _HandoffRoute(TypedDict):
    """The required part of `HandoffEvidence` (a total TypedDict: `Required[...]` is not
    recognised under postponed annotations on Python 3.11)."""

    operation_id: str
    route_contract: str
    sender: str | None
    recipient: str | None
    declared_routes: Iterable[str]
    goto: str | None
    control_before: str | None
    control_after: str | None


class HandoffEvidence(_HandoffRoute, total=False):
    """What every handoff records, passed as keywords to `route_receipt` and `waiting_receipt`:
    route, control, tool protocol, context and the destination's start."""

    required_context_keys: Iterable[str]
    context: Mapping[str, Any] | Iterable[str]
    tool_call_id: str | None
    tool_message_call_id: str | None
    destination_node: str | None
    started_at: datetime | None
    attempt: int


def _handoff(evidence: HandoffEvidence) -> ReceiptBuilder:
    """A builder holding the evidence every handoff shares (unknown or missing keys: TypeError)."""
    unknown = set(evidence) - set(HandoffEvidence.__annotations__)
    missing = HandoffEvidence.__required_keys__ - set(evidence)
    if unknown or missing:
        raise TypeError(f"handoff evidence: unknown {sorted(unknown)}, missing {sorted(missing)}")
    builder = ReceiptBuilder(
        operation_id=evidence["operation_id"],
        route_contract=evidence["route_contract"],
        sender=evidence["sender"],
        recipient=evidence["recipient"],
        declared_routes=list(evidence["declared_routes"]),
        required_context_keys=list(evidence.get("required_context_keys", ())),
    )
    builder.routed(evidence["goto"]).control(evidence["control_before"], evidence["control_after"])
    builder.tool(evidence.get("tool_call_id"), evidence.get("tool_message_call_id"))
    builder.context(evidence.get("context", ()))
    destination = evidence.get("destination_node")
    if destination is not None:
        builder.started(destination, evidence.get("started_at"), evidence.get("attempt", 1))
    return builder


def route_receipt(
    *,
    verifier: str | None = None,
    passed: bool | None = None,
    checked_at: datetime | None = None,
    complete: bool = False,
    **evidence: Unpack[HandoffEvidence],
) -> Receipt:
    """A routing handoff in one call. `verifier`+`passed` record a result; `complete` claims done."""
    builder = _handoff(evidence)
    if verifier is not None and passed is not None:
        builder.verified(verifier, passed, checked_at)
    if complete:
        builder.complete()
    return builder.build()


def waiting_receipt(
    *,
    owner: str | None,
    reason: str | None,
    resume_token_id: str | None,
    deadline_utc: datetime | None = None,
    ttl_s: float | None = None,
    now: datetime | None = None,
    **evidence: Unpack[HandoffEvidence],
) -> Receipt:
    """A handoff to a person (e.g. an `interrupt()`), ending in `waiting`."""
    builder = _handoff(evidence)
    builder.waiting(
        owner=owner,
        reason=reason,
        resume_token_id=resume_token_id,
        deadline_utc=deadline_utc,
        ttl_s=ttl_s,
        now=now,
    )
    return builder.build()
