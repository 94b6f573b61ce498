from __future__ import annotations

from decimal import Decimal

import pytest

from kb_update.markdown import blocks, links, replace_blocks
from kb_update.prices import find_money, parse_price, rewrite_mention_text


@pytest.mark.parametrize(
    ("text", "amount", "period"),
    [
        ("$10/month", "10", "month"),
        ("$10 per month", "10", "month"),
        ("$10 each month", "10", "month"),
        ("10 $/mois", "10", "month"),
        ("10 $ par mois", "10", "month"),
        ("10 dollars par mois", "10", "month"),
        ("10 dollars a month", "10", "month"),
        ("10,00 €/mois", "10.00", "month"),
        ("US$10", "10", None),
        ("$120/year", "120", "year"),
        ("120 $/an", "120", "year"),
        ("$120 once a year", "120", "year"),
        ("$300 billed annually", "300", "year"),
    ],
)
def test_english_and_french_forms_are_found_with_their_period(text: str, amount: str, period: str | None) -> None:
    [money] = find_money(f"Le prix : {text}. Fin.")
    assert money.amount == Decimal(amount)
    assert money.period == period
    assert money.text == text


def test_other_numbers_are_not_the_old_price() -> None:
    amounts = [m.amount for m in find_money("$100, $1,000, 10% off, 10 days, $7.50 and 210 $")]
    assert amounts == [Decimal(100), Decimal(1000), Decimal("7.50"), Decimal(210)]


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [("$10/month", "12", "$12/month"), ("10,00 $/mois", "12.5", "12,50 $/mois"),
     ("$10.00 per month", "12", "$12.00 per month"), ("120 $/an", "144", "144 $/an"),
     ("$10/month", "12.99", "$12.99/month")],
)
def test_rewrite_changes_only_the_digits(text: str, value: str, expected: str) -> None:
    [money] = find_money(text)
    assert rewrite_mention_text(money, Decimal(value)) == expected


def test_parse_price_rejects_text_that_is_not_a_price() -> None:
    assert parse_price("12 $/mois").period == "month"
    with pytest.raises(ValueError, match="not a price"):
        parse_price("twelve dollars")
    with pytest.raises(ValueError):
        parse_price("$10/month and $12/month")


def test_paragraph_edit_leaves_the_rest_byte_identical() -> None:
    text = "# T\n\nOne $10.\n\n\n| a | b |\n|---|---|\n\nEnd [x](y.md)\n"
    parts = blocks(text)
    assert [b.text for b in parts] == ["# T", "One $10.", "| a | b |\n|---|---|", "End [x](y.md)"]
    edited = replace_blocks(text, {1: "One $12."})
    assert edited == text.replace("One $10.", "One $12.")
    assert links(edited)["y.md"] == 1
