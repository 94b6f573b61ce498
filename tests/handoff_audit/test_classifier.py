"""The classifier: the seed's eight cases, precedence, waiting edge cases, complete-while-waiting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from handoff_audit.classifier import BOUNDARIES, VerdictCode, classify
from handoff_audit.replay import load_cases, render_table, replay
from tests.handoff_audit.factories import NOW, healthy, valid_wait

CASES = load_cases()


def test_fixture_has_one_case_per_verdict_family() -> None:
    expected = {case.expected for case in CASES}
    assert len(CASES) == 8
    assert expected == {
        "HEALTHY",
        "ROUTE_REJECTED",
        "STALE_CONTROL",
        "OPEN_TOOL_PROTOCOL",
        "CONTEXT_INCOMPLETE",
        "DESTINATION_NOT_STARTED",
        "FALSE_COMPLETE",
        "WAITING_ON_APPROVAL",
    }


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_seed_case(case) -> None:
    assert classify(case.receipt, case.now).verdict.value == case.expected


def test_replay_reports_eight_of_eight() -> None:
    report = replay()
    assert (report.passed, report.total) == (8, 8)
    table = render_table(report)
    assert table.splitlines()[-1] == "8/8 expected verdicts"
    assert "OPEN_TOOL_PROTOCOL" in table


def test_replay_counts_a_wrong_expectation(tmp_path) -> None:
    from handoff_audit.replay import fixture_text

    text = fixture_text().replace('"expected": "STALE_CONTROL"', '"expected": "HEALTHY"')
    path = tmp_path / "cases.jsonl"
    path.write_text(text)
    report = replay(path)
    assert (report.passed, report.total, report.ok) == (7, 8, False)


def test_healthy_reports_all_six_boundaries_passed() -> None:
    verdict = classify(healthy(), NOW)
    assert verdict.verdict is VerdictCode.HEALTHY
    assert [b.name for b in verdict.boundaries] == list(BOUNDARIES)
    assert all(b.passed for b in verdict.boundaries)
    assert verdict.to_dict()["boundaries"]["result"]["passed"] is True


# --- each boundary on its own -------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({"goto": "workout_advisor"}, "ROUTE_REJECTED"),
        ({"goto": None}, "ROUTE_REJECTED"),
        ({"declared_routes": ["workout_advisor"]}, "ROUTE_REJECTED"),
        ({"control_before": "nutrition_advisor"}, "STALE_CONTROL"),
        ({"control_after": "workout_advisor"}, "STALE_CONTROL"),
        ({"control_before": None}, "STALE_CONTROL"),
        ({"tool_message_call_id": None}, "OPEN_TOOL_PROTOCOL"),
        ({"tool_message_call_id": "call_2"}, "OPEN_TOOL_PROTOCOL"),
        ({"context_keys_present": ["goal"]}, "CONTEXT_INCOMPLETE"),
        ({"context_keys_present": []}, "CONTEXT_INCOMPLETE"),
        ({"destination_start": None}, "DESTINATION_NOT_STARTED"),
        (
            {
                "destination_start": {
                    "node": "workout_advisor",
                    "started_at": "2026-11-29T10:00:00Z",
                }
            },
            "DESTINATION_NOT_STARTED",
        ),
        ({"result": None}, "FALSE_COMPLETE"),
        ({"result": {"verifier": "no_meat_when_vegetarian", "passed": False}}, "FALSE_COMPLETE"),
        ({"final_state": "in_progress", "result": None}, "HEALTHY"),
    ],
)
def test_single_break(changes, expected) -> None:
    verdict = classify(healthy(**changes), NOW)
    assert verdict.verdict.value == expected
    failed = [b.name for b in verdict.boundaries if not b.passed]
    assert len(failed) <= 1


def test_no_tool_call_passes_the_tool_boundary() -> None:
    verdict = classify(healthy(tool_call_id=None, tool_message_call_id=None), NOW)
    assert verdict.verdict is VerdictCode.HEALTHY
    assert verdict.boundary("tool_protocol").reason == "not a tool-call handoff"


def test_extra_context_keys_are_fine_and_none_required_passes() -> None:
    assert classify(healthy(context_keys_present=["goal", "constraints", "history"]), NOW).healthy
    assert classify(healthy(required_context_keys=[], context_keys_present=[]), NOW).healthy


def test_keeping_the_same_advisor_is_a_healthy_handoff() -> None:
    keep = healthy(
        sender="nutrition_advisor",
        control_before="nutrition_advisor",
        destination_start={
            "node": "nutrition_advisor",
            "started_at": "2026-11-29T10:00:00Z",
            "attempt": 2,
        },
    )
    assert classify(keep, NOW).healthy


# --- precedence ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({"goto": "workout_advisor", "control_after": "workout_advisor"}, "ROUTE_REJECTED"),
        ({"declared_routes": [], "result": None}, "ROUTE_REJECTED"),
        ({"control_after": "workout_advisor", "tool_message_call_id": None}, "STALE_CONTROL"),
        ({"tool_message_call_id": "call_9", "context_keys_present": []}, "OPEN_TOOL_PROTOCOL"),
        ({"context_keys_present": ["goal"], "destination_start": None}, "CONTEXT_INCOMPLETE"),
        ({"destination_start": None, "result": None}, "DESTINATION_NOT_STARTED"),
        (
            {"destination_start": None, "final_state": "waiting", "wait": {"owner": "user:1"}},
            "DESTINATION_NOT_STARTED",
        ),
        (
            {
                "context_keys_present": [],
                "final_state": "waiting",
                "result": None,
                "wait": valid_wait(owner=None),
            },
            "CONTEXT_INCOMPLETE",
        ),
        ({"recipient": None}, "ROUTE_REJECTED"),
    ],
)
def test_two_failures_the_earlier_wins(changes, expected) -> None:
    verdict = classify(healthy(**changes), NOW)
    assert verdict.verdict.value == expected
    failed = [b.name for b in verdict.boundaries if not b.passed]
    assert len(failed) >= 2, "the case must really break two boundaries"
    assert verdict.deciding.name == failed[0]


def test_a_later_green_never_masks_an_earlier_failure() -> None:
    # Verified result, valid everything else, but the route was never declared.
    verdict = classify(healthy(declared_routes=["workout_advisor"]), NOW)
    assert verdict.verdict is VerdictCode.ROUTE_REJECTED
    assert verdict.boundary("result").passed


# --- waiting ------------------------------------------------------------------------------------


def _waiting(**wait_changes) -> dict:
    return healthy(final_state="waiting", result=None, wait=valid_wait(**wait_changes))


def test_valid_wait_is_waiting_on_approval() -> None:
    verdict = classify(_waiting(), NOW)
    assert verdict.verdict is VerdictCode.WAITING_ON_APPROVAL
    assert verdict.boundary("result").passed


@pytest.mark.parametrize("missing", ["owner", "reason", "deadline_utc", "resume_token_id"])
def test_wait_missing_a_field_is_uncertain(missing) -> None:
    verdict = classify(_waiting(**{missing: None}), NOW)
    assert verdict.verdict is VerdictCode.UNCERTAIN
    assert missing in verdict.boundary("result").reason


@pytest.mark.parametrize("missing", ["owner", "deadline_utc", "resume_token_id"])
def test_wait_field_absent_from_json_is_uncertain(missing) -> None:
    wait = valid_wait()
    del wait[missing]
    assert (
        classify(healthy(final_state="waiting", result=None, wait=wait), NOW).verdict
        is VerdictCode.UNCERTAIN
    )


def test_blank_owner_counts_as_missing() -> None:
    assert classify(_waiting(owner="  "), NOW).verdict is VerdictCode.UNCERTAIN


def test_past_deadline_is_uncertain_and_the_same_receipt_was_fine_before() -> None:
    receipt = _waiting(deadline_utc="2026-11-29T11:00:00Z")
    assert classify(receipt, NOW).verdict is VerdictCode.UNCERTAIN
    assert "not after now" in classify(receipt, NOW).boundary("result").reason
    assert classify(receipt, NOW - timedelta(hours=2)).verdict is VerdictCode.WAITING_ON_APPROVAL


def test_deadline_equal_to_now_is_not_later_than_now() -> None:
    assert (
        classify(_waiting(deadline_utc="2026-11-29T12:00:00Z"), NOW).verdict
        is VerdictCode.UNCERTAIN
    )


def test_waiting_without_wait_record_is_uncertain() -> None:
    assert (
        classify(healthy(final_state="waiting", result=None, wait=None), NOW).verdict
        is VerdictCode.UNCERTAIN
    )


def test_all_wait_fields_missing_is_uncertain() -> None:
    assert (
        classify(healthy(final_state="waiting", result=None, wait={}), NOW).verdict
        is VerdictCode.UNCERTAIN
    )


def test_deadline_offset_and_naive_now_are_compared_in_utc() -> None:
    receipt = _waiting(deadline_utc="2026-11-29T13:30:00+02:00")  # 11:30Z, before NOW
    assert classify(receipt, NOW).verdict is VerdictCode.UNCERTAIN
    naive_now = datetime(2026, 11, 29, 11, 0)  # read as UTC
    assert classify(receipt, naive_now).verdict is VerdictCode.WAITING_ON_APPROVAL


# --- complete while waiting ---------------------------------------------------------------------


def test_complete_while_waiting_without_result_is_false_complete() -> None:
    verdict = classify(healthy(final_state="complete", result=None, wait=valid_wait()), NOW)
    assert verdict.verdict is VerdictCode.FALSE_COMPLETE
    assert "verifier outranks" in verdict.boundary("result").reason


def test_complete_while_waiting_with_failed_verifier_is_false_complete() -> None:
    receipt = healthy(result={"verifier": "x", "passed": False}, wait=valid_wait())
    assert classify(receipt, NOW).verdict is VerdictCode.FALSE_COMPLETE


def test_complete_with_passing_verifier_is_healthy_even_if_a_wait_lingers() -> None:
    assert classify(healthy(wait=valid_wait()), NOW).verdict is VerdictCode.HEALTHY


def test_default_now_is_the_current_time() -> None:
    future = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    past = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    assert classify(_waiting(deadline_utc=future)).verdict is VerdictCode.WAITING_ON_APPROVAL
    assert classify(_waiting(deadline_utc=past)).verdict is VerdictCode.UNCERTAIN


def test_classifier_and_package_import_neither_langgraph_nor_chainlit() -> None:
    import subprocess
    import sys

    code = (
        "import sys, handoff_audit, handoff_audit.classifier, handoff_audit.cli;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('langgraph', 'langchain_core', 'chainlit')];"
        "print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == ""
