"""Typed replies to a knowledge update's pending question (EN/FR): yes/no, or a decision on an item."""

from __future__ import annotations

import re
from typing import Any

_NO = re.compile(r"^(?:no|non|nope|reject|rejeter|refuse[rz]?|cancel|annule[rz]?|don'?t|do not|ne pas|pas|stop|"
                 r"keep|garde[rz]?|conserve[rz]?|laisse[rz]?)\b")
_YES = re.compile(r"^(?:yes|yep|y|ok|okay|sure|oui|ouais|d'accord|approve[ds]?|approuve[rz]?|valide[rz]?|publish|"
                  r"publie[rz]?|add|ajoute[rz]?|apply|applique[rz]?|use|utilise[rz]?|go|vas-y|allez-y)\b")
_ALL = re.compile(r"\b(?:all|every|tout|toutes|tous)\b")


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower().replace("’", "'")).strip(" .!?")


def yes_no(text: str) -> bool | None:
    """A typed answer to a yes/no approval (EN/FR), or None when it is not one."""
    word = _clean(text)
    if _NO.match(word) or re.search(r"\b(?:don'?t|do not|ne pas|pas)\s+(?:publish|publier|apply|appliquer)", word):
        return False
    if _YES.match(word):
        return True
    return None


def decision_reply(text: str) -> dict[str, Any] | None:
    """A typed answer to an item left for a person: the computed value, keep, or an amount."""
    word = _clean(text)
    if re.search(r"\d", word) and not _YES.match(word):
        return {"choice": "value", "value": word}
    answer = yes_no(word)
    if answer is None:
        return None
    if answer:
        return {"choice": "computed", "all": bool(_ALL.search(word))}
    return {"choice": "keep", "all": bool(_ALL.search(word))}
