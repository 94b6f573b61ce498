"""The router on phrasings written apart from its keyword lists and its own labelled set."""

from __future__ import annotations

import json

from coach import route
from tests.conftest import REPO_ROOT

HELDOUT = REPO_ROOT / "tests" / "data" / "router_heldout.jsonl"


def test_router_heldout_accuracy() -> None:
    rows = [json.loads(line) for line in HELDOUT.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(rows) >= 30
    wrong = [r for r in rows if route(r["text"], r["last"]) != r["expect"]]
    assert len(wrong) / len(rows) <= 0.05, wrong
