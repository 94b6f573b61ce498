"""The shape of a gate failure message, shared by gates, workers, lessons and the review.

A failure is one human-readable line: `[tag] paragraph N: what is wrong; `A` should be `B``.
The tag groups failures for the learning edge; the paragraph number and the
`A` should be `B` hint make the evidence precise enough for a worker (model or offline) to
fix exactly that, and nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TAG = re.compile(r"^\[([\w-]+)\]")
_PARAGRAPH = re.compile(r"\bparagraph (\d+)\b")
_HINT = re.compile(r"`([^`\n]+)`\s+should be\s+`([^`\n]+)`")


@dataclass(frozen=True)
class Hint:
    """A replacement a failure (or a lesson) asks for, optionally tied to a paragraph."""

    paragraph: int | None  # 0-based, None = anywhere in scope
    old: str
    new: str


def failure(tag: str, message: str, paragraph: int | None = None) -> str:
    """Format one failure line; `paragraph` is 0-based and shown 1-based."""
    where = f"paragraph {paragraph + 1}: " if paragraph is not None else ""
    return f"[{tag}] {where}{message}"


def tag_of(message: str) -> str:
    match = _TAG.match(message.strip())
    return match.group(1) if match else "other"


def paragraph_of(message: str) -> int | None:
    """0-based paragraph a failure points at, if it names one."""
    match = _PARAGRAPH.search(message)
    return int(match.group(1)) - 1 if match else None


def hint_text(old: str, new: str) -> str:
    return f"`{old}` should be `{new}`"


def parse_hints(message: str) -> list[Hint]:
    """Every `A` should be `B` in a failure or lesson text."""
    paragraph = paragraph_of(message)
    return [Hint(paragraph, m.group(1), m.group(2)) for m in _HINT.finditer(message)]
