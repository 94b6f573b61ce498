"""The whole knowledge base checked against a price change, after the units are done.

A unit only sees its own article. Amounts *derived* from the old price often live elsewhere:
the Family row of another language's table ("30 $/mois" = three times the Base price stated
in a different article), an annual total, a gap between two plans, or a fraction of that gap
("you pay about $7.50 today" = half the Base→Premium difference). This module scans every
article as it will be after the run and returns each amount that still follows the old price,
with the value it would have under the new one, so a person can decide it in the review.

Relations are learnt from the knowledge base itself, never from a list of plan names:
- ratios stated anywhere in a pricing sentence ("three times the Base price", "half price",
  "50% off", "trois fois", "moitié") apply to amounts in every article and language;
- other plans' prices (same currency and period) give the differences and their fractions.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from kb_update.consistency import DIFFERENCE_WORDS, RATIO_PATTERNS, period_factor
from kb_update.markdown import blocks, clause_at
from kb_update.prices import PERIOD_MONTHS, Money, Price, find_money, rewrite_mention_text

# Words that make a sentence state a price (a ratio found there is a pricing relation).
_PRICE_WORDS = re.compile(
    r"\b(?:price[sd]?|pricing|costs?|tarifs?|prix|co[ûu]te\w*)\b|\$|€|£", re.IGNORECASE,
)
# Words that put an amount in a pricing context.
_PRICING = re.compile(
    r"\b(?:price[sd]?|pricing|plans?|costs?|pays?|charged?|membership|subscription|tarifs?|prix|forfaits?|"
    r"co[ûu]te\w*|paient|payez|abonnements?|formules?)\b",
    re.IGNORECASE,
)
# Words that make an amount a share of a difference (a prorated upgrade, "halfway through").
_SHARE = re.compile(
    r"\b(?:prorat\w*|halfway|half|third|quarter|partial|remaining|rest|moiti[ée]|tiers|quart|au\s+prorata|reste)\b",
    re.IGNORECASE,
)
FRACTIONS = (Decimal(1) / 2, Decimal(1) / 3, Decimal(2) / 3, Decimal(1) / 4, Decimal(3) / 4)


@dataclass(frozen=True)
class Derived:
    """One amount in one article that still follows the old price."""

    path: str
    paragraph: int  # 0-based
    start: int  # offset of the mention inside the paragraph
    text: str  # the mention as written ("30 $/mois")
    suggestion: str  # the same mention with the recomputed amount ("36 $/mois")
    kind: str  # "old-price" | "period-total" | "difference" | "share-of-difference" | "ratio"
    old_amount: Decimal
    new_amount: Decimal
    period: str | None
    relation: str  # how it follows the old price, in words (English; the UI may reword it)
    source: str  # the sentence the relation was read from (for ratios: where it is stated)
    factor: Decimal | None = None  # the ratio, period count or share involved
    other: Decimal | None = None  # the other plan's price of a difference


def _close(a: Decimal, b: Decimal) -> bool:
    return abs(a - b) < Decimal("0.005")


def _fmt(value: Decimal) -> str:
    value = value.quantize(Decimal("0.01"))
    return str(int(value)) if value == value.to_integral_value() else f"{value:.2f}"


def stated_ratios(texts: dict[str, str], every: bool = False) -> dict[Any, str]:
    """Ratio → the first sentence stating it, for every ratio stated in a pricing sentence
    (`every`: keyed by (ratio, sentence), one entry per sentence)."""
    found: dict[Any, str] = {}
    for text in texts.values():
        for block in blocks(text):
            for pattern, value in RATIO_PATTERNS:
                for match in pattern.finditer(block.text):
                    ratio: Decimal = value(match)  # type: ignore[operator]
                    sentence = clause_at(block.text, match.start()).strip()
                    if ratio > 0 and ratio != 1 and _PRICE_WORDS.search(sentence):
                        found.setdefault((ratio, sentence) if every else ratio, sentence)
    return found


def ratio_sentences(texts: dict[str, str], ratio: Decimal) -> list[tuple[str, str]]:
    """(path, sentence) of every pricing sentence stating `ratio` ("three times the Base plan")."""
    found: list[tuple[str, str]] = []
    for path, text in sorted(texts.items()):
        for one, sentence in stated_ratios({path: text}, every=True).items():
            if abs(one[0] - ratio) < Decimal("0.0001") and (path, sentence) not in found:
                found.append((path, sentence))
    return found


def other_prices(texts: dict[str, str], old: Price, new: Price) -> set[Decimal]:
    """Prices for the same period and currency that are neither the old nor the new one."""
    found = set()
    for text in texts.values():
        for money in find_money(text):
            if money.currency == old.currency and money.period == old.period and old.period is not None:
                if not (_close(money.amount, old.amount) or _close(money.amount, new.amount)):
                    found.add(money.amount)
    return found


def _span(money: Money, sentence: str, old: Price) -> Decimal:
    """How many old-price periods this mention covers (1 when it states the same period)."""
    base = PERIOD_MONTHS.get(old.period or "")
    months = PERIOD_MONTHS.get(money.period or "") if money.period else None
    if base and months:
        return Decimal(months) / Decimal(base)
    return Decimal(1)


def _is_table_row(paragraph: str, offset: int) -> bool:
    line_start = paragraph.rfind("\n", 0, offset) + 1
    return paragraph[line_start:].lstrip().startswith("|")


class KnowledgeBaseCheck:
    """Finds the amounts of a whole knowledge base that still follow the old price."""

    def __init__(self, old: Price, new: Price, originals: dict[str, str]) -> None:
        self.old, self.new = old, new
        self.ratios = stated_ratios(originals)
        self.others = sorted(other_prices(originals, old, new))

    def scan(self, texts: dict[str, str], allowed: dict[str, Counter[tuple[int, str]]] | None = None
             ) -> list[Derived]:
        """Every derived amount in `texts`; `allowed` (per path) were ruled out as not the price."""
        found: list[Derived] = []
        for path, text in sorted(texts.items()):
            left = Counter((allowed or {}).get(path, Counter()))
            for block in blocks(text):
                for money in find_money(block.text):
                    if money.currency != self.old.currency:
                        continue
                    key = (block.index, money.text)
                    if left[key] > 0:
                        left[key] -= 1
                        continue
                    item = self._classify(path, block.index, block.text, money)
                    if item is not None:
                        found.append(item)
        return found

    # --- one mention -----------------------------------------------------------------------
    def _classify(self, path: str, index: int, paragraph: str, money: Money) -> Derived | None:
        old, new = self.old, self.new
        if _close(money.amount, new.amount) and money.period in (new.period, None):
            return None
        sentence = clause_at(paragraph, money.start)

        def make(kind: str, target: Decimal, relation: str, source: str = "", factor: Decimal | None = None,
                 other: Decimal | None = None) -> Derived:
            return Derived(path, index, money.start, money.text, rewrite_mention_text(money, target), kind,
                           money.amount, target.quantize(Decimal("0.01")), money.period, relation,
                           source or sentence.strip(), factor, other)

        if _close(money.amount, old.amount) and money.period in (old.period, None) and (
                money.period is not None or _PRICING.search(sentence)):
            return make("old-price", new.amount, f"the old price {old.raw}")
        factor = period_factor(money, sentence, old)
        if factor is not None:
            return make("period-total", new.amount * factor, f"{_fmt(factor)} × the old price {old.raw}",
                        factor=factor)
        gaps = [(abs(other - old.amount), abs(other - new.amount), other) for other in self.others
                if other != old.amount]
        if DIFFERENCE_WORDS.search(sentence):
            for gap_old, gap_new, other in gaps:
                if _close(money.amount, gap_old):
                    return make("difference", gap_new, f"the difference between {self._pair(other)}",
                                other=other)
        if _PRICING.search(sentence) or _is_table_row(paragraph, money.start):
            span = _span(money, sentence, old)
            for ratio, source in self.ratios.items():
                if _close(money.amount, old.amount * ratio * span):
                    per = f" × {_fmt(span)}" if span != 1 else ""
                    return make("ratio", new.amount * ratio * span,
                                f"{_fmt(ratio)} × the old price {old.raw}{per}", source, factor=ratio)
        if _SHARE.search(sentence) and DIFFERENCE_WORDS.search(paragraph):
            for gap_old, gap_new, other in gaps:
                for share in FRACTIONS:
                    if money.amount < gap_old and _close(money.amount, gap_old * share):
                        return make("share-of-difference", gap_new * share,
                                    f"{_share_words(share)} the difference between {self._pair(other)}",
                                    factor=share, other=other)
        return None

    def _pair(self, other: Decimal) -> str:
        cur = self.old.currency
        return f"{cur}{_fmt(other)} and {cur}{_fmt(self.old.amount)}"


def _share_words(share: Decimal) -> str:
    names = {"0.50": "half of", "0.33": "a third of", "0.67": "two thirds of", "0.25": "a quarter of",
             "0.75": "three quarters of"}
    return names.get(f"{share:.2f}", f"{_fmt(share)} ×")
