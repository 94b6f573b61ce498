"""Reading a price change from a sentence: "The base plan moves from $10/month to $12/month".

Used by the chat profile, so a person can state the change in their own words (English or
French): the two prices are found with the same money finder the gates use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb_update.prices import find_money

_REVERSED = re.compile(r"(?:\bfrom|\binstead\s+of|\bau\s+lieu\s+de|\bde|\bwas|\bétait)\s*$", re.IGNORECASE)
_EFFECTIVE = re.compile(
    r"\b(?:effective(?:\s+(?:from|on|as\s+of))?|starting(?:\s+(?:on|from))?|as\s+of|from\s+(?=\d|[A-Z][a-z]+\s+\d)|"
    r"à\s+partir\s+du|dès\s+le|à\s+compter\s+du)\s+(?P<date>[^.;!?\n]{3,40}?)(?=\s*(?:[.;!?\n]|,(?!\s*\d)|$))",
    re.IGNORECASE,
)
_LABEL = re.compile(r"\b(?:the\s+)?(?P<en>[A-Z]?[a-z]+)\s+plan\b|\bforfait\s+(?P<fr>[A-Za-zÀ-ÿ]+)", re.IGNORECASE)
_NOT_LABELS = {"the", "a", "our", "your", "this", "that", "each", "every", "per", "price", "monthly", "annual"}


@dataclass(frozen=True)
class ChangeRequest:
    """The change a person asked for."""

    old: str
    new: str
    label: str = "base plan"
    effective_date: str | None = None


def parse_change_request(text: str) -> ChangeRequest | None:
    """The old and new price in `text` (order from "from X to Y", "X → Y", "Y instead of X"), or None."""
    mentions = find_money(text)
    if len(mentions) < 2:
        return None
    first, second = mentions[0], mentions[1]
    old, new = first, second
    if _REVERSED.search(text[:second.start]) and not _REVERSED.search(text[:first.start]):
        old, new = second, first
    effective = None
    tail = text[max(first.end, second.end):]
    match = _EFFECTIVE.search(tail)
    if match:
        effective = match.group("date").strip()
    label = "base plan"
    for found in _LABEL.finditer(text):
        word = (found.group("en") or found.group("fr") or "").strip()
        if word and word.lower() not in _NOT_LABELS:
            label = f"{word} plan" if found.group("en") else f"forfait {word}"
            break
    return ChangeRequest(old=old.text, new=new.text, label=label, effective_date=effective)
