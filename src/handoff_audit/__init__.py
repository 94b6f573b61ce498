"""Handoff audit receipts: six boundaries per handoff, a verdict with precedence, stored per thread.

- `receipt`: the content-free `Receipt` schema and the content scan.
- `classifier`: `classify(receipt, now) -> Verdict` (pure; no LangGraph, no Chainlit).
- `builders`: receipts from plain values (`ReceiptBuilder`, `route_receipt`, `waiting_receipt`, ids).
- `recorder`: `ReceiptStore` (a table of the chat database: SQLite or Postgres; JSONL export).
- `verifiers`: the interface for task-specific result checks (provided by the package that owns the task).
- `render`: markdown for the UI; `replay`: the seed's eight cases.
- `forward` / `langgraph_adapter`: evidence collectors for the orchestrator and LangGraph graphs
  (`graph_messages`: what a turn said; `task_log`: which nodes the stream shows ran).
"""

from handoff_audit.builders import (
    ReceiptBuilder,
    new_operation_id,
    opaque_id,
    owner_id,
    present_keys,
    resume_token_id,
    route_receipt,
    waiting_receipt,
)
from handoff_audit.classifier import BOUNDARIES, BoundaryResult, Verdict, VerdictCode, classify
from handoff_audit.receipt import (
    DestinationStart,
    Receipt,
    ResultCheck,
    Wait,
    assert_no_content,
    content_problems,
)
from handoff_audit.recorder import ReceiptStore, UnsafeReceipt, read_receipts
from handoff_audit.render import render_markdown, render_receipts

__all__ = [
    "BOUNDARIES",
    "BoundaryResult",
    "DestinationStart",
    "Receipt",
    "ReceiptBuilder",
    "ReceiptStore",
    "ResultCheck",
    "UnsafeReceipt",
    "Verdict",
    "VerdictCode",
    "Wait",
    "assert_no_content",
    "classify",
    "content_problems",
    "new_operation_id",
    "opaque_id",
    "owner_id",
    "present_keys",
    "read_receipts",
    "render_markdown",
    "render_receipts",
    "resume_token_id",
    "route_receipt",
    "waiting_receipt",
]
