"""The price job's own gates: old price absent, new price present, and the offline judge.

The paragraph-diff and link gates are generic and live in `kb_update.gates`.
"""

from __future__ import annotations

from collections import Counter
from typing import Protocol

from kb_update.failures import failure, hint_text
from kb_update.markdown import blocks
from kb_update.prices import Money, Price, find_money, rewrite_mention_text
from kb_update.types import Unit


class PriceRule(Protocol):
    """What the gates ask of a price change (`kb_update.price_job.PriceChangeJob` is one)."""

    new: Price

    def is_old_price(self, money: Money) -> bool: ...

    def is_new_price(self, money: Money) -> bool: ...

    def findings(self, text: str, allowed: Counter[tuple[int, str]]) -> list[str]: ...


def _allowed(unit: Unit) -> Counter[tuple[int, str]]:
    """(paragraph, text) of mentions the splitter ruled out: they may stay as they are."""
    return Counter((h["paragraph"], h["text"]) for h in unit["discarded"])


class OldPriceAbsent:
    """Code gate: the old price no longer appears (except mentions ruled out by the splitter)."""

    name = "old-price-absent"

    def __init__(self, job: PriceRule) -> None:
        self.job = job

    def __call__(self, unit: Unit, text: str) -> list[str]:
        allowed = _allowed(unit)
        out = []
        for block in blocks(text):
            for money in find_money(block.text):
                if not self.job.is_old_price(money):
                    continue
                key = (block.index, money.text)
                if allowed[key] > 0:
                    allowed[key] -= 1
                    continue
                target = rewrite_mention_text(money, self.job.new.amount)
                out.append(failure("old-price", f"still contains `{money.text}`; {hint_text(money.text, target)}.",
                                   block.index))
        return out


class NewPricePresent:
    """Code gate: each paragraph that had the old price now has the new one as many times."""

    name = "new-price-present"

    def __init__(self, job: PriceRule) -> None:
        self.job = job

    def __call__(self, unit: Unit, text: str) -> list[str]:
        expected = Counter(h["paragraph"] for h in unit["hits"] if h["kind"] == "price")
        paragraphs = {b.index: b.text for b in blocks(text)}
        out = []
        for index, count in sorted(expected.items()):
            body = paragraphs.get(index, "")
            found = sum(1 for m in find_money(body) if self.job.is_new_price(m))
            if found < count:
                was = ", ".join(f"`{h['text']}`" for h in unit["hits"]
                                if h["paragraph"] == index and h["kind"] == "price")
                out.append(failure(
                    "new-price-missing",
                    f"had the old price {count}× ({was}) but shows the new price {self.job.new.raw} only "
                    f"{found}×; write it where the old one was.", index))
        return out


class OfflineJudge:
    """OFFLINE STAND-IN for the model judge: a code check of amounts derived from the price.

    It answers the judge's question ("does the article still contradict the new price?")
    only for shapes code can recognise: period totals (×12), differences, worked examples
    and linked prices. With a model configured, the model judge replaces it.
    """

    name = "judge (offline stand-in: derived-amount code check)"

    def __init__(self, job: PriceRule) -> None:
        self.job = job

    def __call__(self, unit: Unit, text: str) -> list[str]:
        return self.job.findings(text, _allowed(unit))
