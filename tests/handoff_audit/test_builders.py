"""Builders: stable opaque ids and receipts assembled stage by stage from plain values."""

from __future__ import annotations

from datetime import timedelta

import pytest

from handoff_audit.builders import (
    ReceiptBuilder,
    new_operation_id,
    owner_id,
    present_keys,
    resume_token_id,
    route_receipt,
    waiting_receipt,
)
from handoff_audit.classifier import VerdictCode, classify
from handoff_audit.receipt import assert_no_content, content_problems
from tests.handoff_audit.factories import NOW

ROUTES = ["workout_advisor", "nutrition_advisor"]


def test_operation_id_is_stable_opaque_and_distinct() -> None:
    a = new_operation_id("thread-7f3a", 3)
    assert a == new_operation_id("thread-7f3a", 3)
    assert a != new_operation_id("thread-7f3a", 4) != new_operation_id("thread-other", 3)
    assert a.startswith("op-") and "7f3a" not in a and len(a) == 27


def test_resume_token_hides_thread_and_checkpoint() -> None:
    token = resume_token_id("thread-1", "1f0c-checkpoint")
    assert token and token.startswith("rt-") and "thread" not in token and "checkpoint" not in token
    assert token != resume_token_id("thread-1", "another-checkpoint")
    assert resume_token_id("thread-1", None) is None


def test_owner_id_keeps_short_ids_and_hashes_names() -> None:
    assert owner_id("42") == "user:42"
    assert owner_id("alice@example.com") == "user:alice@example.com"
    hashed = owner_id("Alice Martin")
    assert hashed and hashed.startswith("user:") and "Alice" not in hashed and " " not in hashed
    assert owner_id("") is None and owner_id(None) is None


def test_present_keys_drops_missing_values_but_keeps_empty_collections() -> None:
    context = {"goal": "muscle", "constraints": [], "injuries": None, "note": "  "}
    assert present_keys(context) == ["goal", "constraints"]
    assert present_keys(["a", "b"]) == ["a", "b"]


def test_builder_stages_give_a_healthy_receipt_without_any_value() -> None:
    builder = ReceiptBuilder(
        operation_id=new_operation_id("t1", 2),
        route_contract="coach.router/v1",
        sender="workout_advisor",
        recipient="nutrition_advisor",
        declared_routes=ROUTES,
        required_context_keys=["goal", "constraints"],
    )
    builder.routed("nutrition_advisor").control("workout_advisor", "nutrition_advisor")
    builder.tool("call_1", "call_1").context(
        {"goal": "build muscle, lose fat", "constraints": ["vegetarian"]}
    )
    builder.started("nutrition_advisor", NOW).started(
        "nutrition_advisor", NOW + timedelta(seconds=5)
    )
    receipt = builder.verified("no_meat_when_vegetarian", True, NOW).complete().build()
    assert (
        receipt.destination_start and receipt.destination_start.started_at == NOW
    )  # first start kept
    assert classify(receipt, NOW).verdict is VerdictCode.HEALTHY
    assert_no_content(receipt, ["build muscle, lose fat", "muscle", '"vegetarian"'])
    assert content_problems(receipt) == []


def test_claiming_complete_without_verifying_is_false_complete() -> None:
    receipt = route_receipt(
        operation_id="op-1",
        route_contract="coach.router/v1",
        sender="workout_advisor",
        recipient="workout_advisor",
        declared_routes=ROUTES,
        goto="workout_advisor",
        control_before="workout_advisor",
        control_after="workout_advisor",
        destination_node="workout_advisor",
        started_at=NOW,
        complete=True,
    )
    assert classify(receipt, NOW).verdict is VerdictCode.FALSE_COMPLETE


def test_waiting_receipt_deadline_from_ttl() -> None:
    receipt = waiting_receipt(
        operation_id="op-2",
        route_contract="coach.human/v1",
        sender="nutrition_advisor",
        recipient="human",
        declared_routes=["human"],
        goto="human",
        control_before="nutrition_advisor",
        control_after="human",
        owner=owner_id("42"),
        reason="constraints",
        resume_token_id=resume_token_id("t1", "cp1"),
        ttl_s=3600,
        now=NOW,
        destination_node="human",
        started_at=NOW,
    )
    assert receipt.wait and receipt.wait.deadline_utc == NOW + timedelta(hours=1)
    assert classify(receipt, NOW).verdict is VerdictCode.WAITING_ON_APPROVAL
    assert classify(receipt, NOW + timedelta(hours=2)).verdict is VerdictCode.UNCERTAIN


def test_one_call_builders_refuse_unknown_or_missing_evidence() -> None:
    with pytest.raises(TypeError, match="unknown \\['tool_cal_id'\\]"):
        route_receipt(operation_id="op", route_contract="c", sender="a", recipient="b", declared_routes=["b"],
                      goto="b", control_before="a", control_after="b", tool_cal_id="t")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="missing .*'goto'"):
        waiting_receipt(operation_id="op", route_contract="c", sender="a", recipient="human",  # type: ignore[call-arg]
                        declared_routes=["human"], control_before="a", control_after="human",
                        owner="user", reason="approval", resume_token_id="r")
