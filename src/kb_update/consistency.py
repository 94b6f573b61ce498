"""Code checks for amounts computed from a price (the offline stand-in for the model judge).

After "$10/month" becomes "$12/month", an article can still contradict the new price through
numbers derived from the old one. These detectors find the usual shapes, each with the
amount it should become:

- `derived-amount`: a period total, old price × 12 for a year (× 3 a quarter, × 6 a half-year):
  "$120/year", "a single charge of $120 once a year", "120 $/an";
- `arithmetic`: a worked example that no longer adds up: "9 months × $12 = $90";
- `difference`: a gap to another price computed with the old one: Premium at $25/month
  "costs $15 more" (25 − 10) → $13;
- `linked-price`: another price stated as a ratio of this one ("three times the Base plan",
  "50% off", "half price"): following it changes another product's price, a decision for a
  person unless the shared decisions say linked prices follow.

Each finding names the paragraph and the exact text, so it doubles as correction evidence.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal

from kb_update.markdown import blocks, clause_at
from kb_update.prices import (
    PERIOD_MONTHS,
    Money,
    Price,
    find_money,
    period_in_context,
    rewrite_mention_text,
)

DIFFERENCE_WORDS = re.compile(
    r"\b(?:more|less|extra|additional|difference|cheaper|dearer|gap|plus|moins|diff[ée]rence|suppl[ée]ment\w*|[ée]cart)\b",
    re.IGNORECASE,
)
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5}
RATIO_PATTERNS: list[tuple[re.Pattern[str], object]] = [
    (re.compile(r"\b(\d+|two|three|four|five|deux|trois|quatre|cinq)\s+(?:times|fois)\b", re.IGNORECASE),
     lambda m: Decimal(_NUMBER_WORDS.get(m.group(1).lower(), m.group(1)))),
    (re.compile(r"\b(?:twice|double)\b", re.IGNORECASE), lambda m: Decimal(2)),
    (re.compile(r"\btriple\b", re.IGNORECASE), lambda m: Decimal(3)),
    (re.compile(r"\b(?:half|moiti[ée]|demi)\b", re.IGNORECASE), lambda m: Decimal("0.5")),
    (re.compile(r"(\d+)\s?%\s*(?:off|discount|cheaper|de\s+(?:r[ée]duction|rabais|remise)|moins\s+cher)", re.IGNORECASE),
     lambda m: 1 - Decimal(m.group(1)) / 100),
    (re.compile(r"(\d+)\s?%\s*(?:of|du|de)\b", re.IGNORECASE), lambda m: Decimal(m.group(1)) / 100),
]
_OPERAND = r"(?:[$€£]\s?)?\d+(?:[.,]\d+)?(?:\s?[$€£])?(?:\s+[^\W\d_]+)?"
_ARITHMETIC = re.compile(
    rf"(?P<lhs>{_OPERAND}(?:\s*[×x*]\s*{_OPERAND})+)\s*=\s*(?P<rhs>(?:[$€£]\s?)?\d+(?:[.,]\d+)?(?:\s?[$€£])?)"
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class Finding:
    """One amount that contradicts the new price, and what it should become."""

    tag: str
    paragraph: int  # 0-based
    text: str  # the exact text in the paragraph
    suggestion: str | None  # what the text should become, when code can compute it
    message: str  # the full failure line (with tag, paragraph and hint)


def _same(a: Decimal, b: Decimal) -> bool:
    return abs(a - b) < Decimal("0.005")


def period_factor(money: Money, sentence: str, old: Price) -> Decimal | None:
    """How many old-price periods this amount spans, when it is a total of the old price."""
    if old.period is None or PERIOD_MONTHS.get(old.period) is None or money.currency != old.currency:
        return None
    base = Decimal(PERIOD_MONTHS[old.period] or 1)
    for period, months in PERIOD_MONTHS.items():
        if not months or months <= (PERIOD_MONTHS[old.period] or 0):
            continue
        factor = Decimal(months) / base
        if factor != factor.to_integral_value():
            continue
        stated = money.period == period or (money.period is None and period_in_context(sentence, period))
        if stated and _same(money.amount, old.amount * factor):
            return factor
    return None


def _fmt(value: Decimal) -> str:
    value = value.quantize(Decimal("0.01"))
    return str(int(value)) if value == value.to_integral_value() else f"{value:.2f}"


class ConsistencyChecker:
    """Runs the detectors for one price change over a whole article."""

    def __init__(self, old: Price, new: Price, *, linked_prices_follow: bool = False) -> None:
        self.old, self.new = old, new
        self.linked_prices_follow = linked_prices_follow

    # --- public ----------------------------------------------------------------------------
    def findings(self, text: str, allowed: Counter[tuple[int, str]] | None = None,
                 tags: set[str] | None = None) -> list[Finding]:
        """Every contradiction in `text`; `allowed` (paragraph, text) pairs were ruled out by the splitter."""
        allowed = Counter(allowed or {})
        monthly = self._other_prices(text)
        found: list[Finding] = []
        for block in blocks(text):
            for finding in self._paragraph(block.index, block.text, monthly):
                if tags is not None and finding.tag not in tags:
                    continue
                key = (finding.paragraph, finding.text)
                if allowed[key] > 0:
                    allowed[key] -= 1
                    continue
                found.append(finding)
        return found

    # --- detectors -------------------------------------------------------------------------
    def _other_prices(self, text: str) -> list[Decimal]:
        """Prices per the job's period stated in the article that are not this plan's."""
        amounts = []
        for money in find_money(text):
            same_kind = money.currency == self.old.currency and money.period == self.old.period
            if same_kind and not (_same(money.amount, self.old.amount) or _same(money.amount, self.new.amount)):
                amounts.append(money.amount)
        return amounts

    def _paragraph(self, index: int, paragraph: str, others: list[Decimal]) -> list[Finding]:
        found: list[Finding] = []
        seen: set[tuple[int, int]] = set()
        found += self._arithmetic(index, paragraph, seen)
        for money in find_money(paragraph):
            if (money.start, money.end) in seen or money.currency != self.old.currency:
                continue
            if _same(money.amount, self.old.amount) or _same(money.amount, self.new.amount):
                continue
            sentence = clause_at(paragraph, money.start)
            finding = (
                self._derived(index, money, sentence)
                or self._difference(index, money, sentence, others)
                or self._linked(index, money, paragraph)
            )
            if finding:
                found.append(finding)
        return found

    def _derived(self, index: int, money: Money, sentence: str) -> Finding | None:
        factor = period_factor(money, sentence, self.old)
        if factor is None:
            return None
        target = rewrite_mention_text(money, self.new.amount * factor)
        message = (
            f"[derived-amount] paragraph {index + 1}: `{money.text}` is {_fmt(factor)} × the old price "
            f"{self.old.raw}; `{money.text}` should be `{target}` ({_fmt(factor)} × {self.new.raw})."
        )
        return Finding("derived-amount", index, money.text, target, message)

    def _difference(self, index: int, money: Money, sentence: str, others: list[Decimal]) -> Finding | None:
        if not DIFFERENCE_WORDS.search(sentence):
            return None
        for other in others:
            cur = money.currency
            for was, now, how in (
                (other - self.old.amount, other - self.new.amount, f"{cur}{_fmt(other)} − {cur}{_fmt(self.old.amount)}"),
                (self.old.amount - other, self.new.amount - other, f"{cur}{_fmt(self.old.amount)} − {cur}{_fmt(other)}"),
            ):
                if was > 0 and now > 0 and _same(money.amount, was) and not _same(money.amount, now):
                    target = rewrite_mention_text(money, now)
                    message = (
                        f"[difference] paragraph {index + 1}: `{money.text}` is a difference computed with "
                        f"the old price ({how}); `{money.text}` should be `{target}`."
                    )
                    return Finding("difference", index, money.text, target, message)
        return None

    def _linked(self, index: int, money: Money, paragraph: str) -> Finding | None:
        months = PERIOD_MONTHS.get(money.period or "", None) if money.period else None
        base_months = PERIOD_MONTHS.get(self.old.period or "", None)
        span = Decimal(months) / Decimal(base_months) if months and base_months else Decimal(1)
        for pattern, value in RATIO_PATTERNS:
            for match in pattern.finditer(paragraph):
                ratio: Decimal = value(match)  # type: ignore[operator]
                if ratio <= 0 or ratio == 1:
                    continue
                was, now = self.old.amount * ratio * span, self.new.amount * ratio * span
                if _same(money.amount, was) and not _same(money.amount, now):
                    target = rewrite_mention_text(money, now)
                    if self.linked_prices_follow:
                        message = (
                            f"[linked-price] paragraph {index + 1}: `{money.text}` is set as \"{match.group(0)}\" "
                            f"the price; the shared decisions say linked prices follow, so `{money.text}` "
                            f"should be `{target}`."
                        )
                    else:
                        message = (
                            f"[linked-price] paragraph {index + 1}: `{money.text}` is \"{match.group(0)}\" the old "
                            f"price {self.old.raw}; with {self.new.raw} it would be `{target}`. That changes another "
                            f"price, which the shared decisions do not cover: a person must decide."
                        )
                    return Finding("linked-price", index, money.text, target, message)
        return None

    def _arithmetic(self, index: int, paragraph: str, seen: set[tuple[int, int]]) -> list[Finding]:
        found = []
        for match in _ARITHMETIC.finditer(paragraph):
            numbers = [Decimal(n.replace(",", ".")) for n in _NUMBER.findall(match.group("lhs"))]
            rhs_money = find_money(match.group("rhs"))
            if len(numbers) < 2 or not rhs_money:
                continue
            product = Decimal(1)
            for number in numbers:
                product *= number
            result = rhs_money[0]
            start = match.start("rhs") + result.start
            seen.add((start, match.start("rhs") + result.end))
            if _same(result.amount, product):
                continue
            target = rewrite_mention_text(result, product)
            message = (
                f"[arithmetic] paragraph {index + 1}: `{match.group(0)}` does not add up; "
                f"`{result.text}` should be `{target}`."
            )
            found.append(Finding("arithmetic", index, result.text, target, message))
        return found

