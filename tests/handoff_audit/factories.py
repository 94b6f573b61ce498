"""Receipt factories shared by the handoff_audit tests (a healthy base, then one change per test)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def healthy(**changes: Any) -> dict[str, Any]:
    """A complete, verified coach handoff workout → nutrition; `changes` override top-level fields."""
    receipt: dict[str, Any] = {
        "receipt_version": 1,
        "operation_id": "op-test-1",
        "route_contract": "coach.router/v1",
        "sender": "workout_advisor",
        "recipient": "nutrition_advisor",
        "declared_routes": ["workout_advisor", "nutrition_advisor"],
        "goto": "nutrition_advisor",
        "control_before": "workout_advisor",
        "control_after": "nutrition_advisor",
        "tool_call_id": "call_1",
        "tool_message_call_id": "call_1",
        "required_context_keys": ["goal", "constraints"],
        "context_keys_present": ["goal", "constraints"],
        "destination_start": {
            "node": "nutrition_advisor",
            "started_at": "2026-11-29T10:00:00Z",
            "attempt": 1,
        },
        "final_state": "complete",
        "result": {
            "verifier": "no_meat_when_vegetarian",
            "passed": True,
            "checked_at": "2026-11-29T10:00:05Z",
        },
        "wait": None,
    }
    receipt.update(changes)
    return receipt


def valid_wait(**changes: Any) -> dict[str, Any]:
    wait = {
        "owner": "user:42",
        "reason": "constraints",
        "deadline_utc": "2026-11-30T12:00:00Z",
        "resume_token_id": "rt-0123456789abcdef01234567",
    }
    wait.update(changes)
    return wait
