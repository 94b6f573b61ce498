from __future__ import annotations

from pathlib import Path

import pytest

from kb_update.consistency import ConsistencyChecker
from kb_update.failures import parse_hints, tag_of
from kb_update.price_job import PriceChange, PriceChangeJob
from kb_update.prices import parse_price
from kb_update.splitter import split
from kb_update.types import Unit


def _unit(kb: Path, job: PriceChangeJob, path: str) -> Unit:
    return next(u for u in split(job, kb).units if u["path"] == path)


def _run_gates(job: PriceChangeJob, unit: Unit, text: str) -> dict[str, list[str]]:
    gates = job.code_gates() + [job.offline_judge()]
    return {gate.name: gate(unit, text) for gate in gates}


GOOD_PLANS = """# Plans and pricing

Pulse has two plans. Prices are in US dollars.

| Plan | Monthly | Annual |
|---|---|---|
| Base | $12/month | $144/year |
| Premium | $25/month | $300/year |

The Base plan costs $12 per month and includes your home club. See [workout plans](../workouts.md) and <https://pulse.example/clubs>.

Premium adds every club and unlimited classes.
"""


def test_a_correct_rewrite_passes_every_gate(kb: Path, job: PriceChangeJob) -> None:
    unit = _unit(kb, job, "billing/plans.md")
    assert _run_gates(job, unit, GOOD_PLANS) == {name: [] for name in _run_gates(job, unit, GOOD_PLANS)}


def test_each_code_gate_fails_its_own_defect(kb: Path, job: PriceChangeJob) -> None:
    unit = _unit(kb, job, "billing/plans.md")
    left_old = GOOD_PLANS.replace("$12 per month", "$10 per month")
    assert [tag_of(m) for m in _run_gates(job, unit, left_old)["old-price-absent"]] == ["old-price"]
    assert "paragraph 4" in _run_gates(job, unit, left_old)["old-price-absent"][0]
    assert "`$10 per month` should be `$12 per month`" in _run_gates(job, unit, left_old)["old-price-absent"][0]

    dropped = GOOD_PLANS.replace("costs $12 per month and", "is")
    assert _run_gates(job, unit, dropped)["new-price-present"]

    touched = GOOD_PLANS.replace("Premium adds every club", "Premium adds all clubs")
    [message] = _run_gates(job, unit, touched)["paragraph-diff"]
    assert message.startswith("[out-of-scope] paragraph 5") and "Premium adds every club" in message

    merged = GOOD_PLANS.replace("dollars.\n\n|", "dollars.\n|")
    assert tag_of(_run_gates(job, unit, merged)["paragraph-diff"][0]) == "structure"

    unlinked = GOOD_PLANS.replace(" and <https://pulse.example/clubs>", "")
    [message] = _run_gates(job, unit, unlinked)["links-preserved"]
    assert "https://pulse.example/clubs" in message


def test_offline_judge_catches_a_stale_annual_total_with_its_fix(kb: Path, job: PriceChangeJob) -> None:
    unit = _unit(kb, job, "billing/plans.md")
    stale = GOOD_PLANS.replace("$144/year", "$120/year")
    judge = job.offline_judge()
    assert "offline stand-in" in judge.name  # clearly labelled
    [message] = judge(unit, stale)
    assert tag_of(message) == "derived-amount"
    [hint] = parse_hints(message)
    assert (hint.paragraph, hint.old, hint.new) == (2, "$120/year", "$144/year")  # the table, 0-based


def test_discarded_mentions_may_stay(kb: Path, job: PriceChangeJob) -> None:
    unit = _unit(kb, job, "faq.md")
    rewritten = unit["original"].replace("10 dollars a month", "12 dollars a month")
    assert "$10, $25" in rewritten
    assert all(not failures for failures in _run_gates(job, unit, rewritten).values())


@pytest.mark.parametrize(
    ("text", "tag", "old", "new"),
    [
        ("Charged $12 each month, or a single charge of $120 once a year.", "derived-amount", "$120 once a year",
         "$144 once a year"),
        ("Le forfait coûte 12 $/mois, soit 120 $/an.", "derived-amount", "120 $/an", "144 $/an"),
        ("You get back 9 months × $12 = $90.", "arithmetic", "$90", "$108"),
        ("Vous récupérez 9 mois × 12 $ = 90 $.", "arithmetic", "90 $", "108 $"),
        ("Premium is $25/month. Base is $12/month, so Premium costs $15 more per month.", "difference",
         "$15", "$13"),
        ("Family costs $30/month: three times the Base plan ($12/month each).", "linked-price",
         "$30/month", "$36/month"),
        ("Students get 50% off: $5/month instead of $12/month.", "linked-price", "$5/month", "$6/month"),
    ],
)
def test_consistency_detectors(text: str, tag: str, old: str, new: str) -> None:
    checker = ConsistencyChecker(parse_price("$10/month"), parse_price("$12/month"))
    [finding] = checker.findings(text)
    assert (finding.tag, finding.text, finding.suggestion) == (tag, old, new)


@pytest.mark.parametrize(
    "text",
    [
        "Base is $12/month and $144/year.",
        "You get back 9 months × $12 = $108.",
        "Premium is $25 per month; the $40 session is worth the difference.",
        "At most $50 of credit a year.",
        "Family costs $36/month: three times the Base plan ($12/month each).",
    ],
)
def test_consistent_text_has_no_findings(text: str) -> None:
    checker = ConsistencyChecker(parse_price("$10/month"), parse_price("$12/month"))
    assert checker.findings(text) == []


def test_linked_prices_escalate_unless_the_decisions_say_they_follow() -> None:
    ask = PriceChangeJob(PriceChange.parse("$10/month", "$12/month"))
    follow = PriceChangeJob(PriceChange.parse("$10/month", "$12/month", linked_prices_follow=True))
    text = "Students get 50% off: $5/month instead of $12/month."
    [asked] = ConsistencyChecker(ask.old, ask.new).findings(text)
    [followed] = ConsistencyChecker(follow.old, follow.new, linked_prices_follow=True).findings(text)
    assert ask.needs_person(asked.message) and "a person must decide" in asked.message
    assert not follow.needs_person(followed.message) and parse_hints(followed.message)[0].new == "$6/month"
