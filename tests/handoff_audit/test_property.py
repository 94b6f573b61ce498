"""Property: breaking boundaries makes the verdict the earliest broken boundary's, whatever else holds."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from handoff_audit.classifier import BOUNDARIES, FAILURE_CODES, VerdictCode, classify
from tests.handoff_audit.factories import NOW

names = st.from_regex(r"[a-z][a-z0-9_]{1,10}", fullmatch=True)


@st.composite
def healthy_receipts(draw: st.DrawFn) -> dict[str, Any]:
    """A random receipt with every boundary sound; the result is a pass, an open task or a valid wait."""
    agents = draw(st.lists(names, min_size=1, max_size=5, unique=True))
    sender = draw(st.sampled_from(agents))
    recipient = draw(st.sampled_from(agents))
    keys = draw(st.lists(names, max_size=4, unique=True))
    extra = draw(st.lists(names.filter(lambda k: k not in keys), max_size=2, unique=True))
    call = draw(st.one_of(st.none(), names.map(lambda n: f"call_{n}")))
    ending = draw(st.sampled_from(["complete", "in_progress", "waiting"]))
    receipt: dict[str, Any] = {
        "operation_id": "op-" + draw(names),
        "route_contract": draw(names) + "/v1",
        "sender": sender,
        "recipient": recipient,
        "declared_routes": agents,
        "goto": recipient,
        "control_before": sender,
        "control_after": recipient,
        "tool_call_id": call,
        "tool_message_call_id": call,
        "required_context_keys": keys,
        "context_keys_present": draw(st.permutations(keys + extra)),
        "destination_start": {
            "node": recipient,
            "started_at": NOW - timedelta(minutes=1),
            "attempt": draw(st.integers(1, 3)),
        },
        "final_state": ending,
        "result": None,
        "wait": None,
    }
    if ending == "complete":
        receipt["result"] = {"verifier": draw(names), "passed": True, "checked_at": NOW}
    if ending == "waiting":
        receipt["wait"] = {
            "owner": "user:" + draw(names),
            "reason": draw(names),
            "deadline_utc": NOW + timedelta(seconds=draw(st.integers(1, 10**7))),
            "resume_token_id": "rt-" + draw(names),
        }
    return receipt


def other(value: str | None) -> str:
    return f"{value or 'x'}_other"


def break_boundary(receipt: dict[str, Any], boundary: str, how: int) -> VerdictCode:
    """Break exactly `boundary` without touching the evidence of any other; return its verdict."""
    r = receipt
    if boundary == "route":
        if how % 2:
            r["goto"] = other(r["recipient"])
        else:
            r["declared_routes"] = [a for a in r["declared_routes"] if a != r["recipient"]]
    elif boundary == "control":
        key = "control_before" if how % 2 else "control_after"
        r[key] = other(r[key])
    elif boundary == "tool_protocol":
        if r["tool_call_id"] is None:
            r["tool_call_id"] = "call_open"
        r["tool_message_call_id"] = None if how % 2 else other(r["tool_call_id"])
    elif boundary == "context":
        if r["required_context_keys"]:
            dropped = r["required_context_keys"][how % len(r["required_context_keys"])]
            r["context_keys_present"] = [k for k in r["context_keys_present"] if k != dropped]
        else:
            r["required_context_keys"] = ["missing_key"]
    elif boundary == "destination":
        if how % 2:
            r["destination_start"] = None
        else:
            r["destination_start"] = {**r["destination_start"], "node": other(r["recipient"])}
    elif boundary == "result":
        kind = how % 4
        if kind in (0, 1):
            r["final_state"] = "complete"
            r["result"] = None if kind == 0 else {"verifier": "v", "passed": False}
            return VerdictCode.FALSE_COMPLETE
        r["final_state"] = "waiting"
        r["result"] = None
        wait = dict(
            r["wait"]
            or {
                "owner": "user:1",
                "reason": "r",
                "resume_token_id": "rt-1",
                "deadline_utc": NOW + timedelta(days=1),
            }
        )
        if kind == 2:
            wait["deadline_utc"] = NOW - timedelta(seconds=how + 1)
        else:
            wait[("owner", "reason", "deadline_utc", "resume_token_id")[how % 4]] = None
        r["wait"] = wait
        return VerdictCode.UNCERTAIN
    return FAILURE_CODES[boundary]


@settings(max_examples=100, deadline=None)
@given(healthy_receipts())
def test_generated_receipts_are_healthy_or_waiting(receipt: dict[str, Any]) -> None:
    verdict = classify(receipt, NOW)
    expected = (
        VerdictCode.WAITING_ON_APPROVAL
        if receipt["final_state"] == "waiting"
        else VerdictCode.HEALTHY
    )
    assert verdict.verdict is expected
    assert all(b.passed for b in verdict.boundaries)


@settings(max_examples=200, deadline=None)
@given(
    healthy_receipts(),
    st.lists(st.sampled_from(BOUNDARIES), min_size=1, max_size=6, unique=True),
    st.integers(0, 1000),
)
def test_earliest_broken_boundary_decides(
    receipt: dict[str, Any], broken: list[str], how: int
) -> None:
    codes = {name: break_boundary(receipt, name, how) for name in broken}
    earliest = min(broken, key=BOUNDARIES.index)
    verdict = classify(receipt, NOW)
    assert verdict.verdict is codes[earliest]
    assert verdict.deciding.name == earliest
    assert {b.name for b in verdict.boundaries if not b.passed} == set(broken)
