"""Markdown for the UI's collapsible element."""

from __future__ import annotations

from handoff_audit.classifier import classify
from handoff_audit.receipt import Receipt
from handoff_audit.render import render_markdown
from tests.handoff_audit.factories import NOW, healthy


def test_markdown_lists_the_verdict_and_six_boundaries_in_order() -> None:
    receipt = Receipt.model_validate(healthy(tool_message_call_id="call|2"))
    text = render_markdown(classify(receipt, NOW), receipt)
    lines = text.splitlines()
    assert lines[0] == "**⚠️ Handoff OPEN_TOOL_PROTOCOL · workout_advisor → nutrition_advisor**"
    rows = [line for line in lines if line.startswith("| ") and "Boundary" not in line]
    assert [row.split(" | ")[0].strip("| ") for row in rows] == [
        "Route",
        "Control",
        "Tool protocol",
        "Context",
        "Destination",
        "Result",
    ]
    assert "| Tool protocol | ✘ |" in text and "call\\|2" in text  # pipes escaped, table intact
    assert text.endswith("_Repair the history before another model call._")


def test_healthy_title() -> None:
    verdict = classify(healthy(), NOW)
    assert render_markdown(verdict).startswith("**✅ Handoff HEALTHY**")


def test_render_receipts_gives_one_section_per_receipt() -> None:
    from handoff_audit.render import render_receipts

    receipts = [
        Receipt.model_validate(healthy()),
        Receipt.model_validate(healthy(operation_id="op-2", result=None)),
    ]
    text = render_receipts(receipts, NOW)
    sections = text.split("\n\n---\n\n")
    assert len(sections) == 2
    assert "HEALTHY" in sections[0] and "FALSE_COMPLETE" in sections[1] and "op-2" in sections[1]


def test_verdict_line_is_one_short_line_per_handoff() -> None:
    from handoff_audit.classifier import classify
    from handoff_audit.receipt import Receipt
    from handoff_audit.render import verdict_line
    from tests.handoff_audit.factories import healthy

    receipt = Receipt.model_validate(healthy())
    line = verdict_line(classify(receipt, NOW), receipt)
    assert line == f"✅ HEALTHY → {receipt.recipient}" and "\n" not in line
