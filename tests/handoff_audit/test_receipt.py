"""The receipt schema and the content scan."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from handoff_audit.receipt import Receipt, assert_no_content, content_problems
from tests.handoff_audit.factories import healthy, valid_wait


def test_issue_example_round_trips_with_exact_field_names() -> None:
    receipt = Receipt.model_validate(healthy(final_state="waiting", result=None, wait=valid_wait()))
    data = json.loads(receipt.to_json())
    assert list(data) == [
        "receipt_version",
        "operation_id",
        "route_contract",
        "route_rule",
        "sender",
        "recipient",
        "declared_routes",
        "goto",
        "control_before",
        "control_after",
        "tool_call_id",
        "tool_message_call_id",
        "required_context_keys",
        "context_keys_present",
        "destination_start",
        "final_state",
        "result",
        "wait",
    ]
    assert data["destination_start"] == {
        "node": "nutrition_advisor",
        "started_at": "2026-11-29T10:00:00Z",
        "attempt": 1,
    }
    assert set(data["wait"]) == {"owner", "reason", "deadline_utc", "resume_token_id"}
    assert Receipt.from_json(receipt.to_json()) == receipt


def test_unknown_fields_are_refused_so_nothing_rides_along() -> None:
    with pytest.raises(ValidationError):
        Receipt.model_validate(healthy(message="I'm vegetarian, adjust the meal suggestion"))
    with pytest.raises(ValidationError):
        Receipt.model_validate(healthy(wait={**valid_wait(), "prompt": "Any allergy?"}))


def test_final_state_is_one_of_three() -> None:
    with pytest.raises(ValidationError):
        Receipt.model_validate(healthy(final_state="done"))
    with pytest.raises(ValidationError):
        Receipt.model_validate({k: v for k, v in healthy().items() if k != "final_state"})


def test_optional_fields_may_be_missing() -> None:
    minimal = Receipt.model_validate({"operation_id": "op-1", "final_state": "in_progress"})
    assert minimal.wait is None and minimal.destination_start is None
    assert minimal.declared_routes == [] and minimal.attempt == 0


def test_clean_receipt_has_no_content_problems() -> None:
    receipt = Receipt.model_validate(healthy(final_state="waiting", result=None, wait=valid_wait()))
    assert content_problems(receipt, secrets=["sk-live-abcdef123456"]) == []


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"sender": "I'm vegetarian, adjust the meal suggestion"}, "sender"),
        ({"wait": valid_wait(reason="Do you have any injury or allergy?")}, "wait.reason"),
        (
            {"context_keys_present": ["goal", "build muscle and lose fat"]},
            "context_keys_present[1]",
        ),
        ({"route_contract": "/home/alice/relais/contract.json"}, "route_contract"),
        ({"operation_id": "C:\\Users\\alice\\op"}, "operation_id"),
        ({"tool_call_id": "call-sk-live-abcdef123456"}, "tool_call_id"),
        ({"wait": valid_wait(owner="user:hunter2")}, "wait.owner"),
    ],
)
def test_content_problems_name_the_field_not_the_value(changes, field) -> None:
    receipt = Receipt.model_validate(healthy(**changes))
    problems = content_problems(receipt, secrets=["sk-live-abcdef123456", "hunter2"])
    assert len(problems) == 1 and problems[0].startswith(field + ":")
    assert (
        "sk-live" not in problems[0]
        and "vegetarian" not in problems[0]
        and "hunter2" not in problems[0]
    )


def test_short_secret_does_not_trip_on_an_opaque_hash() -> None:
    receipt = Receipt.model_validate(healthy(operation_id="op-00beef1234abcd"))
    assert content_problems(receipt, secrets=["beef"]) == []
    assert content_problems(Receipt.model_validate(healthy(operation_id="beef")), secrets=["beef"])


def test_assert_no_content_scans_the_serialised_receipt() -> None:
    receipt = Receipt.model_validate(healthy())
    assert_no_content(receipt, ["I'm vegetarian", "sk-live-abcdef123456", "/home/"])
    with pytest.raises(AssertionError):
        assert_no_content(receipt, ["Nutrition_Advisor"])  # case-insensitive
    accented = Receipt.model_validate(healthy(sender="végétarien"))
    with pytest.raises(AssertionError):
        assert_no_content(accented, ["végétarien"])  # found although JSON escapes it
