from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage

from kb_update.price_job import PriceChangeJob
from kb_update.splitter import (
    SplitCoverageError,
    build_units,
    check_coverage,
    split,
    split_with_rules,
)
from kb_update.types import HitDecision
from relais.retry import RetryPolicy
from relais.testing import ScriptedChatModel


def test_search_finds_every_form_and_rules_keep_or_discard_with_reasons(kb: Path, job: PriceChangeJob) -> None:
    result = split(job, kb)
    found = {(h["path"], h["text"]) for h in result.hits}
    assert {("billing/annual.md", "$10 each month"), ("billing/annual.md", "$120/year"),
            ("faq.md", "10 dollars a month"), ("fr/tarifs.md", "10 $/mois"), ("fr/tarifs.md", "120 $/an"),
            ("getting-started.md", "$10 per month"), ("referral.md", "$10"), ("faq.md", "$10")} <= found
    verdict = {h["id"]: d for h in result.hits for d in result.decisions if d["hit_id"] == h["id"]}
    dropped = {h["path"]: verdict[h["id"]]["reason"] for h in result.hits if not verdict[h["id"]]["keep"]}
    assert set(dropped) == {"faq.md", "referral.md"}  # the gift card and the credit
    assert all(reason for reason in dropped.values())
    assert [u["path"] for u in result.units] == [
        "billing/annual.md", "billing/plans.md", "faq.md", "fr/tarifs.md", "getting-started.md"]
    faq = next(u for u in result.units if u["path"] == "faq.md")
    assert [h["text"] for h in faq["discarded"]] == ["$10"]  # travels with the unit, may stay unchanged
    for unit in result.units:
        assert "\n" not in unit["brief"] and unit["path"] in unit["brief"] and "$12/month" in unit["brief"]


def test_coverage_check_catches_a_dropped_hit(kb: Path, job: PriceChangeJob) -> None:
    result = split_with_rules(job, kb, job.search(kb))
    assert check_coverage(result.hits, result.decisions, result.units) == []
    dropped = result.decisions[2]
    decisions = [d for d in result.decisions if d is not dropped]
    units = build_units(job, kb, result.hits, decisions)
    problems = check_coverage(result.hits, decisions, units)
    assert any(dropped["hit_id"] in p and "neither kept nor discarded" in p for p in problems)


def test_coverage_check_catches_duplicates_unknown_ids_and_missing_reasons(kb: Path, job: PriceChangeJob) -> None:
    result = split_with_rules(job, kb, job.search(kb))
    first = result.decisions[0]
    decisions = result.decisions + [first, HitDecision(hit_id="h999", keep=True, reason="x")]
    decisions = [HitDecision(hit_id=d["hit_id"], keep=d["keep"], reason="" if not d["keep"] else d["reason"])
                 for d in decisions]
    problems = check_coverage(result.hits, decisions, result.units)
    assert any(f"{first['hit_id']} " in p and "decided 2 times" in p for p in problems)
    assert any("h999" in p for p in problems)
    assert any("without a reason" in p for p in problems)


def _plan(hits: list[dict], drop: str | None = None) -> dict:
    verdicts = [{"hit_id": h["id"], "keep": h["text"] != "$10", "reason": "about the plan price"
                 if h["text"] != "$10" else "a gift card / credit"} for h in hits if h["id"] != drop]
    paths = sorted({h["path"] for h in hits if h["text"] != "$10"})
    return {"verdicts": verdicts, "briefs": [{"path": p, "brief": f"Update {p} to $12/month."} for p in paths]}


def test_model_splitter_gets_the_coverage_problems_back_and_fails_if_still_incomplete(
        kb: Path, job: PriceChangeJob) -> None:
    hits = job.search(kb)
    lost = hits[3]["id"]
    model = ScriptedChatModel(script=[_plan(hits, drop=lost), _plan(hits, drop=lost)])
    with pytest.raises(SplitCoverageError) as caught:
        split(job, kb, model, RetryPolicy.no_wait(1))
    assert any(lost in p for p in caught.value.problems)
    assert len(model.calls) == 2
    assert f"hit {lost}" in model.prompt_texts()[1] and "neither kept nor discarded" in model.prompt_texts()[1]


def test_model_splitter_fixes_its_split_on_the_second_try(kb: Path, job: PriceChangeJob) -> None:
    hits = job.search(kb)
    model = ScriptedChatModel(script=[_plan(hits, drop=hits[0]["id"]), _plan(hits)])
    result = split(job, kb, model, RetryPolicy.no_wait(1))
    assert result.engine == "model"
    assert len(result.units) == 5
    assert {u["brief"] for u in result.units} == {f"Update {u['path']} to $12/month." for u in result.units}
    first_prompt = model.prompt_texts()[0]
    assert all(h["id"] in first_prompt for h in hits)  # the model saw every hit


def test_model_splitter_may_not_invent_units_for_discarded_hits(kb: Path, job: PriceChangeJob) -> None:
    hits = job.search(kb)

    def reply(messages: list[BaseMessage]) -> dict:
        plan = _plan(hits)
        plan["briefs"] = [b for b in plan["briefs"] if b["path"] != "faq.md"]  # a kept article without brief
        return plan

    model = ScriptedChatModel(script=[reply, reply])
    with pytest.raises(SplitCoverageError, match="faq.md has no brief"):
        split(job, kb, model, RetryPolicy.no_wait(1))
