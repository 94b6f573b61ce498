"""Every coach turn run through the runner leaves handoff receipts that classify as expected."""

from __future__ import annotations

from coach import CoachRunner
from handoff_audit.classifier import VerdictCode, classify
from handoff_audit.receipt import content_problems
from relais.events import TextChunk
from relais.settings import secret_values

TURNS = [
    "Build muscle, lose fat — suggest a workout plan",
    "What should I eat to support this workout plan?",
    "I'm vegetarian, adjust the meal suggestion",
]


async def test_runner_records_route_and_wait_receipts() -> None:
    async with CoachRunner.open(model=None) as runner:
        replies = []
        for text in TURNS:
            replies.append("".join([e.text async for e in runner.run_turn("t-audit", text, user_id="42") if isinstance(e, TextChunk)]))
        rows = runner.receipts.list("t-audit")
    receipts = [row.receipt for row in rows]
    routes = [r for r in receipts if r.route_contract == "coach.router/v2"]
    waits = [r for r in receipts if r.final_state == "waiting"]
    assert [r.recipient for r in routes] == ["workout_advisor", "nutrition_advisor", "nutrition_advisor"]
    assert all(classify(r).verdict is VerdictCode.HEALTHY for r in routes), [classify(r).to_dict() for r in routes]
    assert waits and classify(waits[-1]).verdict is VerdictCode.WAITING_ON_APPROVAL
    assert routes[-1].result is not None and "respects_food_restrictions" in routes[-1].result.verifier
    assert [r.route_rule for r in routes] == ["workout_keywords", "conflict_rule", "nutrition_keywords"]
    secrets = secret_values()
    for receipt in receipts:  # ids and keys only: no message text leaks into the audit
        assert not content_problems(receipt, secrets)
        dumped = receipt.model_dump_json()
        assert "vegetarian, adjust" not in dumped and "Build muscle" not in dumped
        assert all(reply[:40] not in dumped for reply in replies if reply)
