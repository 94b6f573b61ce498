"""Amounts derived from the old price anywhere in the knowledge base, and the decisions a person
takes on them before publishing (small fixtures of our own, plus the demo knowledge base)."""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from kb_update.crosscheck import KnowledgeBaseCheck
from kb_update.escalations import decide, normalize_decision, parse_amount
from kb_update.graph import Components
from kb_update.price_job import PriceChange, PriceChangeJob
from kb_update.prices import parse_price
from kb_update.runner import ApprovalNeeded, KbUpdateRun, drive
from tests.conftest import REPO_ROOT
from tests.kb_update.conftest import snapshot

DEMO_KB = REPO_ROOT / "data" / "knowledge"
OLD, NEW = parse_price("$10/month"), parse_price("$12/month")

# A help centre with other names, amounts and languages than the demo one (held-out shapes).
SMALL_KB = {
    "tiers.md": "# Tiers\n\n| Tier | Per month | Per year |\n|---|---|---|\n| Solo | $10/month | $120/year |\n"
                "| Team | $40/month | $480/year |\n| Pro | $25/month | $300/year |\n",
    "team.md": "# Team\n\nThe Team tier is priced at four times the Solo price, for up to five seats.\n",
    "upgrade.md": "# Upgrade\n\nPro costs $25/month and Solo $10/month, so the difference is $15. Halfway through "
                  "the month you pay a prorated $7.50, or about $5 if a third of the month is left.\n",
    "preise.md": "# Preise\n\nLe palier Team coûte 40 $/mois, soit 480 $/an.\n",
    "gift.md": "# Gift cards\n\nA $40 gift card is a nice present.\n",
}


def _write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def _found(texts: dict[str, str]) -> dict[tuple[str, str], tuple[str, str]]:
    check = KnowledgeBaseCheck(OLD, NEW, texts)
    return {(d.path, d.text): (d.kind, d.suggestion) for d in check.scan(texts)}


def test_ratios_stated_in_one_article_reach_tables_and_other_languages() -> None:
    found = _found(SMALL_KB)
    assert found[("tiers.md", "$40/month")] == ("ratio", "$48/month")  # "four times the Solo price", team.md
    assert found[("tiers.md", "$480/year")] == ("ratio", "$576/year")  # × 12 for the yearly column
    assert found[("preise.md", "40 $/mois")] == ("ratio", "48 $/mois")  # the French sentence
    assert found[("preise.md", "480 $/an")] == ("ratio", "576 $/an")
    assert ("gift.md", "$40") not in found  # a gift card is not priced from the plan


def test_differences_and_shares_of_them_are_recomputed() -> None:
    found = _found(SMALL_KB)
    assert found[("upgrade.md", "$15")] == ("difference", "$13")
    assert found[("upgrade.md", "$7.50")] == ("share-of-difference", "$6.50")  # half of 25 − 10
    assert found[("upgrade.md", "$5")] == ("share-of-difference", "$4.33")  # a third of it
    assert found[("tiers.md", "$120/year")] == ("period-total", "$144/year")
    assert found[("tiers.md", "$10/month")] == ("old-price", "$12/month")
    assert ("tiers.md", "$300/year") not in found and ("tiers.md", "$25/month") not in found


def test_nothing_is_flagged_when_no_amount_follows_the_price() -> None:
    texts = {"a.md": "# A\n\nThe Base plan costs $12/month. Lockers cost $30 a year. Premium is $25/month.\n"}
    assert _found(texts) == {}


@pytest.mark.parametrize("answer, expected", [
    (True, {"choice": "computed", "all": False}),
    (False, {"choice": "keep", "all": False}),
    ({"choice": "computed", "all": True}, {"choice": "computed", "all": True}),
    ({"choice": "value", "value": "$35/month"}, {"choice": "value", "value": "35", "all": False}),
    ("36,50", {"choice": "value", "value": "36.50", "all": False}),
    ("keep", {"choice": "keep", "all": False}),
    ({"choice": "nonsense"}, None),
])
def test_answers_to_an_item_are_normalised(answer: Any, expected: Any) -> None:
    item = {"kind": "ratio", "computed": "$36/month"}
    assert normalize_decision(answer, item) == expected


def test_use_for_all_remaining_decides_the_rest_at_once() -> None:
    items = [{"kind": "ratio", "computed": "$36", "decision": None},
             {"kind": "article", "computed": None, "decision": None},
             {"kind": "difference", "computed": "$13", "decision": None}]
    out = decide(items, 0, {"choice": "computed", "all": True})
    assert [i["decision"]["choice"] for i in out] == ["computed", "keep", "computed"]
    assert parse_amount("1,200.50 $") == Decimal("1200.50")


def _mentions(items: Any) -> set[str]:
    return {m["text"] for item in items for m in item["mentions"]}


def _run_small(tmp_path: Path, answer: Any, publish: bool = True) -> tuple[Any, Path, list[ApprovalNeeded]]:
    kb = _write(tmp_path / "kb", SMALL_KB)
    job = PriceChangeJob(PriceChange.parse("$10/month", "$12/month", label="Solo tier"))
    asked: list[ApprovalNeeded] = []

    def person(approval: ApprovalNeeded) -> Any:
        asked.append(approval)
        if approval.kind == "decision":
            return answer(approval.payload["item"]) if callable(answer) else answer
        return publish if approval.kind == "publish" else True

    run = KbUpdateRun(Components.offline(job), kb, InMemorySaver())
    return drive(run, person), kb, asked


def test_decided_values_are_written_everywhere_they_appear(tmp_path: Path) -> None:
    def person(item: dict[str, Any]) -> Any:
        return {"choice": "value", "value": "45"} if Decimal(item["old_amount"]) == 40 else {"choice": "computed"}

    finished, kb, asked = _run_small(tmp_path, person)
    decisions = [a for a in asked if a.kind == "decision"]
    assert _mentions(a.payload["item"] for a in decisions) >= {"$40/month", "40 $/mois", "$480/year", "$7.50", "$5"}
    assert finished.outcome == "published"
    # the yearly Team price follows the typed $45/month (45 × 12), not the computed $48 × 12
    assert "| Team | $45/month | $540/year |" in (kb / "tiers.md").read_text()
    assert "45 $/mois, soit 540 $/an" in (kb / "preise.md").read_text()  # same decision, French form
    yearly = next(a.payload["item"] for a in decisions
                  if "$480/year" in {m["text"] for m in a.payload["item"]["mentions"]})
    assert yearly["new_amount"] == "540.00" and yearly["follows"]["value"].startswith(("$45", "45"))
    assert "prorated $6.50" in (kb / "upgrade.md").read_text()
    assert "$40 gift card" in (kb / "gift.md").read_text()
    # "four times the Solo price" no longer holds beside the typed $45: the review says where
    broken = next(a for a in asked if a.kind == "publish").payload["review"]["broken"]
    assert [b["path"] for b in broken] == ["team.md"]
    assert "45" in broken[0]["typed"] and "48" in broken[0]["expected"] and "four times" in broken[0]["source"]


def test_kept_items_are_said_in_the_review_and_nothing_else_changes(tmp_path: Path) -> None:
    finished, kb, asked = _run_small(tmp_path, False, publish=False)
    before = snapshot(kb)
    publish = next(a for a in asked if a.kind == "publish")
    kept = _mentions(publish.payload["review"]["kept"])
    assert {"$40/month", "$480/year", "$7.50"} <= kept
    assert "Kept as they are on your decision" in publish.payload["markdown"]
    assert finished.outcome == "rejected" and snapshot(kb) == before


@pytest.mark.slow
@pytest.mark.skipif(not DEMO_KB.is_dir(), reason="the demo knowledge base is not in this checkout")
def test_demo_kb_every_derived_amount_is_recomputed_or_decided(tmp_path: Path) -> None:
    kb = Path(shutil.copytree(DEMO_KB, tmp_path / "kb"))
    job = PriceChangeJob(PriceChange.parse("$10/month", "$12/month"))
    asked: list[ApprovalNeeded] = []

    def person(approval: ApprovalNeeded) -> Any:
        asked.append(approval)
        return {"choice": "computed"} if approval.kind == "decision" else True

    finished = drive(KbUpdateRun(Components.offline(job), kb, InMemorySaver()), person)
    assert finished.outcome == "published"
    items = {a.payload["item"]["current"]: a.payload["item"] for a in asked if a.kind == "decision"}
    assert {"$7.50", "$30/month", "$360/year", "$5/month"} <= set(items)
    assert {m["path"] for m in items["$30/month"]["mentions"]} == {
        "family-plan.md", "plans-and-pricing.md", "tarifs-et-forfaits.md"}
    assert "about $6.50 today" in (kb / "change-plan.md").read_text()
    assert "| Famille | 36 $/mois | 432 $/an |" in (kb / "tarifs-et-forfaits.md").read_text()
    assert "$36/month, or $432/year" in (kb / "family-plan.md").read_text()
    assert "soit 6 $/mois" in (kb / "tarifs-et-forfaits.md").read_text()
    texts = {p.name: p.read_text() for p in kb.glob("*.md")}
    assert KnowledgeBaseCheck(OLD, NEW, {p.name: (DEMO_KB / p.name).read_text() for p in kb.glob("*.md")}).scan(
        texts, {"refer-a-friend.md": {(3, "$10"): 1}}) == []  # nothing left following the old price
