"""The concrete job: a price change across help articles ("$10/month" → "$12/month").

Implements the `Job` contract: code search for every English/French form of the old price
(and of totals derived from it), offline keep/discard rules with reasons, briefs, the code
gates, the offline judge stand-in, lessons, and the deterministic offline worker.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from kb_update.articles import kb_files, read_article
from kb_update.consistency import ConsistencyChecker, period_factor
from kb_update.crosscheck import Derived, KnowledgeBaseCheck
from kb_update.failures import parse_hints
from kb_update.gates import LinksPreserved, ParagraphDiff
from kb_update.markdown import blocks, clause_at, replace_blocks
from kb_update.price_gates import NewPricePresent, OfflineJudge, OldPriceAbsent
from kb_update.prices import (
    PERIOD_LABEL,
    Money,
    Price,
    find_money,
    parse_price,
    rewrite_amount,
)
from kb_update.types import Gate, Hit, Lesson, Unit, WorkerInput

# Words right next to an amount that make it something other than the plan's price.
_NOT_THE_PRICE = re.compile(
    r"\b(?:credits?|gift|cards?|vouchers?|coupons?|off|discounts?|rebates?|fees?|deposits?|bonus|rewards?|"
    r"cashback|more|less|extra|additional|cheaper|cr[ée]dits?|cadeaux?|bons?|rabais|"
    r"r[ée]ductions?|remises?|frais|caution|primes?|plus|moins|suppl[ée]mentaires?)\b",
    re.IGNORECASE,
)
# Words that put an amount in a plan / billing context.
_PLAN_CONTEXT = re.compile(
    r"\b(?:plans?|membership|subscriptions?|price[sd]?|pricing|costs?|charged?|charges|pays?|paid|billing|billed|"
    r"bills?|renewal|monthly|tarifs?|prix|co[ûu]te|co[ûu]tent|forfaits?|abonnements?|formules?|adh[ée]sion|"
    r"factur\w*|pa(?:ie|ye)z?|payer|pr[ée]lev\w*|mensualit[ée]s?)\b",
    re.IGNORECASE,
)

DEFAULT_LABEL = "base plan"


@dataclass(frozen=True)
class PriceChange:
    """The shared decisions of a price change."""

    old: Price
    new: Price
    label: str = DEFAULT_LABEL
    effective_date: str | None = None
    existing_customers: str | None = None
    linked_prices_follow: bool = False

    @classmethod
    def parse(cls, old: str, new: str, **kwargs: object) -> PriceChange:
        """From the user's strings: `PriceChange.parse("$10/month", "$12/month")`."""
        old_price, new_price = parse_price(old), parse_price(new)
        if new_price.period is None and old_price.period is not None:
            new_price = Price(new_price.amount, new_price.currency, old_price.period, new_price.raw)
        if old_price.period is None and new_price.period is not None:  # "$10 → $12/month"
            old_price = Price(old_price.amount, old_price.currency, new_price.period, old_price.raw)
        if old_price.period != new_price.period:
            raise ValueError(f"{old!r} and {new!r} are prices for different periods")
        if old_price.amount == new_price.amount and old_price.currency == new_price.currency:
            raise ValueError("the old and new prices are the same")
        return cls(old=old_price, new=new_price, **kwargs)  # type: ignore[arg-type]

    def warnings(self) -> list[str]:
        """What the person should know before the run (shown by the CLI and the chat profile)."""
        if self.old.period is None:
            return [(f"No period given ({self.old.raw}): amounts derived from it (×12 for a year) cannot be "
                     "checked. Write it with its period, e.g. '$10/month' or '10 $/mois'.")]
        return []

    def to_dict(self) -> dict[str, object]:
        return {"old": self.old.raw, "new": self.new.raw, "label": self.label,
                "effective_date": self.effective_date, "existing_customers": self.existing_customers,
                "linked_prices_follow": self.linked_prices_follow}


@dataclass
class PriceChangeJob:
    """A price change as a job for the work graph."""

    change: PriceChange
    name: str = "price-change"
    _checker: ConsistencyChecker = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._checker = ConsistencyChecker(
            self.change.old, self.change.new, linked_prices_follow=self.change.linked_prices_follow
        )

    @property
    def old(self) -> Price:
        return self.change.old

    @property
    def new(self) -> Price:
        return self.change.new

    # --- description -----------------------------------------------------------------------
    def summary(self) -> str:
        return f"The {self.change.label} price changes from {self.old.raw} to {self.new.raw}."

    def decisions(self) -> dict[str, str]:
        per = PERIOD_LABEL.get(self.old.period or "", "")
        return {
            "old price": self.old.raw,
            "new price": f"{self.new.raw} (write it in the article's own form and language, e.g. "
                         f"{self._example_forms()})" if per else self.new.raw,
            "effective date": self.change.effective_date or "not decided: do not state one",
            "wording for existing customers": self.change.existing_customers
            or "none decided: do not add any",
            "linked prices (other plans priced from this one)": "they follow the new price"
            if self.change.linked_prices_follow else "unchanged; a person decides",
        }

    def _example_forms(self) -> str:
        amount = str(self.new.amount.normalize()) if self.new.amount == self.new.amount.to_integral_value() \
            else f"{self.new.amount:.2f}"
        if self.old.period == "month":
            return f"{self.new.currency}{amount}/month, {amount} {self.new.currency}/mois"
        return self.new.raw

    @staticmethod
    def _same_period(money: Money, price: Price) -> bool:
        """A mention states this price's period, or none (a price given without period matches any)."""
        return price.period is None or money.period in (price.period, None)

    def is_old_price(self, money: Money) -> bool:
        return money.same_price(self.old) and self._same_period(money, self.old)

    def is_new_price(self, money: Money) -> bool:
        return money.same_price(self.new) and self._same_period(money, self.new)

    # --- search and split ------------------------------------------------------------------
    def search(self, kb_dir: Path) -> list[Hit]:
        hits: list[Hit] = []
        for path in kb_files(kb_dir):
            text = read_article(path)
            if text is None:
                continue
            rel = path.relative_to(kb_dir).as_posix()
            for block in blocks(text):
                for money in find_money(block.text):
                    kind = self._kind(money, block.text)
                    if kind is None:
                        continue
                    hits.append(Hit(
                        id=f"h{len(hits) + 1}", path=rel, paragraph=block.index, start=money.start,
                        end=money.end, text=money.text, kind=kind,
                        context=clause_at(block.text, money.start).strip(),
                    ))
        return hits

    def _kind(self, money: Money, paragraph: str) -> str | None:
        if money.same_price(self.old):
            return "price"
        if period_factor(money, clause_at(paragraph, money.start), self.old) is not None:
            return "derived"
        return None

    def rule_decision(self, hit: Hit) -> tuple[bool, str]:
        context = hit["context"]
        where = context.find(hit["text"])
        before = context[max(0, where - 40):where] if where >= 0 else ""
        after = context[where + len(hit["text"]):where + len(hit["text"]) + 25] if where >= 0 else ""
        near = " ".join(before.split()[-3:] + after.split()[:2])
        blocker = _NOT_THE_PRICE.search(near)
        mentions = find_money(hit["text"])
        period = mentions[0].period if mentions else None
        label = self.change.label
        if blocker:
            return False, f"'{blocker.group(0)}' next to it: an amount of another kind, not the {label} price"
        if hit["kind"] == "derived":
            if period or _PLAN_CONTEXT.search(context):
                return True, "a total computed from the old price, in a billing context"
            return False, "equals a multiple of the old price but has no plan or billing context"
        if period is not None and (period == self.old.period or self.old.period is None):
            return True, f"states the price per {PERIOD_LABEL[period]}"
        if period is not None:
            return False, f"a price per {PERIOD_LABEL[period]}, not per {PERIOD_LABEL.get(self.old.period or '', '?')}"
        if _PLAN_CONTEXT.search(context):
            return True, "the price, in a plan or billing context"
        return False, "no plan or billing context around the amount"

    def brief(self, unit: Unit) -> str:
        def where(kind: str) -> str:
            by_paragraph: dict[int, list[str]] = {}
            for hit in unit["hits"]:
                if hit["kind"] == kind:
                    by_paragraph.setdefault(hit["paragraph"], []).append(f"'{hit['text']}'")
            return "; ".join(f"paragraph {p + 1} ({', '.join(t)})" for p, t in sorted(by_paragraph.items()))

        prices, derived = where("price"), where("derived")
        parts = [(f"In '{unit['title']}' ({unit['path']}), change the {self.change.label} price from "
                  f"{self.old.raw} to {self.new.raw}")]
        if prices:
            parts.append(f" at {prices}")
        if derived:
            parts.append(f"; amounts computed from it: {derived}")
        parts.append("; keep every other sentence, link and paragraph break unchanged.")
        return "".join(parts)

    def scope(self, unit: Unit) -> list[int]:
        return sorted({hit["paragraph"] for hit in unit["hits"]})

    def checks(self) -> list[str]:
        return [
            f"the old price ({self.old.raw}, in any form) no longer appears, except mentions ruled out as not the price",
            f"the new price ({self.new.raw}) appears wherever the old one was",
            "no paragraph outside your scope differs from the original; same number of paragraphs",
            "every link target is unchanged",
            "nothing contradicts the new price (totals, differences, worked examples computed from the old price)",
        ]

    # --- offline worker --------------------------------------------------------------------
    def offline_rewrite(self, task: WorkerInput) -> str:
        """Replace the old price in scope; apply evidence hints; apply approved lesson rules.

        Deliberately literal: on a first attempt it changes only the price mentions, so the
        gates, the correction edge and the learning edge do real work offline.
        """
        text = task["article"]
        ruled_out = {(h["paragraph"], h["start"]) for h in task["discarded"]}
        rules = {lesson["rule"] for lesson in task["lessons"] if lesson.get("rule")}
        hints = [h for message in task["evidence"] for h in parse_hints(message)]
        scope = set(task["scope"])
        replacements: dict[int, str] = {}
        for block in blocks(text):
            if block.index not in scope:
                continue
            paragraph = block.text
            for money in reversed(find_money(paragraph)):
                if (block.index, money.start) in ruled_out:
                    continue
                if self.is_old_price(money):
                    paragraph = rewrite_amount(paragraph, money, self.new.amount)
            replacements[block.index] = paragraph
        draft = replace_blocks(text, replacements)
        if rules:
            allowed = Counter((h["paragraph"], h["text"]) for h in task["discarded"])
            fixes = [f for f in self._checker.findings(draft, allowed, tags=set(rules))
                     if f.paragraph in scope and f.suggestion and not self.needs_person(f.message)]
            draft = self._apply(draft, [(f.paragraph, f.text, f.suggestion) for f in fixes])  # type: ignore[misc]
        if hints:
            draft = self._apply(draft, [(h.paragraph, h.old, h.new) for h in hints if h.paragraph in scope])
        return draft

    @staticmethod
    def _apply(text: str, edits: list[tuple[int | None, str, str]]) -> str:
        current = {b.index: b.text for b in blocks(text)}
        changed: dict[int, str] = {}
        for paragraph, old, new in edits:
            if paragraph is None or paragraph not in current:
                continue
            body = changed.get(paragraph, current[paragraph])
            changed[paragraph] = body.replace(old, new, 1) if old in body else body
        return replace_blocks(text, changed)

    # --- gates -----------------------------------------------------------------------------
    def code_gates(self) -> list[Gate]:
        return [OldPriceAbsent(self), NewPricePresent(self), ParagraphDiff(), LinksPreserved()]

    def offline_judge(self) -> Gate:
        return OfflineJudge(self)

    def findings(self, text: str, allowed: Counter[tuple[int, str]]) -> list[str]:
        """The consistency checker's failure messages for a rewritten article."""
        return [f.message for f in self._checker.findings(text, allowed)]

    def judge_question(self) -> str:
        return (
            f"{self.summary()} Does this article still say anything that contradicts the new price "
            f"{self.new.raw}, such as a total, difference or worked example computed from the old price "
            f"{self.old.raw}? Mentions ruled out as not being the price are listed; ignore those."
        )

    def needs_person(self, message: str) -> bool:
        return message.startswith("[linked-price]") and not self.change.linked_prices_follow

    # --- the whole knowledge base after the run ---------------------------------------------
    def derived_amounts(self, originals: dict[str, str], texts: dict[str, str],
                        allowed: dict[str, list[tuple[int, str]]]) -> list[Derived]:
        """Amounts anywhere in the KB that still follow the old price (ratios learnt from `originals`)."""
        check = KnowledgeBaseCheck(self.old, self.new, originals)
        return check.scan(texts, {path: Counter(pairs) for path, pairs in allowed.items()})

    def auto_decision(self, item: dict[str, object]) -> str | None:
        """Linked prices follow the new price when the shared decisions say so; else a person decides."""
        return "computed" if item["kind"] == "ratio" and self.change.linked_prices_follow else None

    # --- lessons ---------------------------------------------------------------------------
    def lesson_for(self, tag: str, failures: list[str], units: list[str]) -> Lesson | None:
        examples = []
        for message in failures:
            for hint in parse_hints(message):
                pair = f"{hint.old} → {hint.new}"
                if pair not in examples:
                    examples.append(pair)
        eg = f" (e.g. {'; '.join(examples[:2])})" if examples else ""
        templates: dict[str, tuple[str, str | None]] = {
            "derived-amount": (f"Also update totals computed from the price: ×12 for a year, ×3 for a quarter{eg}.",
                               "derived-amount"),
            "difference": (f"Also update differences between this price and other plans' prices{eg}.", "difference"),
            "arithmetic": (f"Recompute worked examples that use the price so they still add up{eg}.", "arithmetic"),
            "old-price": (f"Replace every form of the old price {self.old.raw}, in English and French{eg}.", None),
            "new-price-missing": ((f"Write the new price {self.new.raw} in the article's own form wherever "
                                   "the old one was."), None),
            "out-of-scope": ("Only edit paragraphs that mention the price; copy every other paragraph exactly.", None),
            "structure": ("Keep every paragraph and blank line; never merge or split paragraphs.", None),
            "links": ("Keep every link target exactly as it is.", None),
        }
        if tag not in templates:
            return None
        text, rule = templates[tag]
        return Lesson(id="", tag=tag, text=text, rule=rule, units=units, status="proposed")
