"""The engine is not tied to "$10 → $12": euros, decimal commas, other phrasings."""

from __future__ import annotations

from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver

from kb_update.graph import Components
from kb_update.price_job import PriceChange, PriceChangeJob
from kb_update.review import render_markdown
from kb_update.runner import KbUpdateRun, drive
from kb_update.splitter import split

ARTICLES = {
    "tarifs.md": "# Tarifs\n\nL'abonnement Essentiel coûte 9,99 €/mois, soit 119,88 € par an.\n\n"
                 "Une carte cadeau de 9,99 € est offerte au parrain.\n",
    "pricing.md": "# Pricing\n\nEssential is €9.99 a month (€119.88 billed annually). "
                  "See [terms](https://x.example/terms).\n\nPro costs €19.99 a month, so €10 more than Essential.\n",
}


def _kb(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    kb.mkdir()
    for name, text in ARTICLES.items():
        (kb / name).write_text(text, encoding="utf-8")
    return kb


def test_a_euro_price_with_decimal_commas_end_to_end(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    job = PriceChangeJob(PriceChange.parse("€9.99/month", "€11.99/month"))
    finished = drive(KbUpdateRun(Components.offline(job), kb, InMemorySaver()), lambda approval: True)
    assert finished.outcome == "published" and finished.stats["escalated"] == 0
    assert (kb / "tarifs.md").read_text() == ARTICLES["tarifs.md"].replace(
        "9,99 €/mois, soit 119,88 €", "11,99 €/mois, soit 143,88 €")  # the gift card keeps its 9,99 €
    assert (kb / "pricing.md").read_text() == ARTICLES["pricing.md"].replace("€9.99", "€11.99").replace(
        "€119.88", "€143.88").replace("€10 more", "€8 more")


def test_a_price_given_without_its_period_matches_every_period_and_warns(tmp_path: Path) -> None:
    kb = _kb(tmp_path)
    change = PriceChange.parse("9,99 €", "11,99 €")
    assert change.warnings() and "cannot be checked" in change.warnings()[0]
    result = split(PriceChangeJob(change), kb)
    kept = {(u["path"], h["text"]) for u in result.units for h in u["hits"]}
    assert kept == {("tarifs.md", "9,99 €/mois"), ("pricing.md", "€9.99 a month")}


def test_units_are_checked_against_each_other_after_the_join(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "family.md").write_text("# Family\n\nFamily costs $30/month: three times the Base plan ($10/month each).\n")
    (kb / "plans.md").write_text("# Plans\n\n| Base | $10/month |\n|---|---|\n| Family | $30/month |\n")
    job = PriceChangeJob(PriceChange.parse("$10/month", "$12/month", linked_prices_follow=True))
    run = KbUpdateRun(Components.offline(job), kb, InMemorySaver())
    finished = drive(run, lambda approval: approval.kind == "lesson")  # read the review, do not publish
    assert finished.outcome == "rejected"
    review = run.values()["review"]
    # plans.md's Family row is rewritten to $36/month in the same run (a linked price follows):
    # the check reads the texts publish will write, so it is not reported as stale
    assert "| Family | $36/month |" in review["texts"]["plans.md"][1]
    assert review["cross_checks"] == []
    assert "Across articles" not in render_markdown(review)


def test_the_cross_check_reports_an_article_left_with_the_old_amount(tmp_path: Path) -> None:
    from kb_update.review import cross_check

    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "family.md").write_text("# Family\n\nFamily costs $30/month.\n")
    (kb / "plans.md").write_text("# Plans\n\nFamily: $30/month.\n")
    final = {"family.md": "# Family\n\nFamily costs $36/month.\n"}
    assert cross_check(kb, {}, final) == [
        "`$30/month` became `$36/month` in family.md, but plans.md still states `$30/month`."]
    assert cross_check(kb, {}, {**final, "plans.md": "# Plans\n\nFamily: $36/month.\n"}) == []
