"""A long plan repeated after "what changed" travels as a collapsible section.

An adjustment reply reads: a short summary paragraph first, then the full updated plan. A person
needs the summary; the plan is there to look up. The section starts at the plan's first heading
(what comes before it, e.g. a question, stays in view), or right after the summary without one. The advisor marks such a reply with a section
title (`FOLD_KEY`: on its message for the offline engine, on the model call's metadata for a
model); the runner then sends the summary as text and the rest as one `TextChunk(folded=title)`
when the rest is long. How a section is shown (a collapsed step, a <details>) is the UI's choice;
a client that ignores `folded` shows the text as usual, so nothing is lost.
"""

from __future__ import annotations

import re

FOLD_KEY = "relais_fold"  # AIMessage.additional_kwargs / model-call metadata: the section title
FOLD_MIN_LINES = 12  # "long": more lines than fit beside the summary on a laptop screen…
FOLD_MIN_CHARS = 900  # …or more characters than a short answer (long lines wrap)

_BLANK_LINE = re.compile(r"\n[ \t\r]*\n")
_HEADING = re.compile(r"^#{1,6}[ \t]", re.MULTILINE)

_TITLES = {
    ("workout_advisor", "en"): "Full plan (updated)",
    ("workout_advisor", "fr"): "Programme complet (mis à jour)",
    ("nutrition_advisor", "en"): "Full meal plan (updated)",
    ("nutrition_advisor", "fr"): "Plan de repas complet (mis à jour)",
}


def section_title(agent: str, language: str) -> str:
    """The folded plan's title, in the conversation's language."""
    lang = language if language in ("en", "fr") else "en"
    return _TITLES.get((agent, lang)) or _TITLES[("workout_advisor", lang)]


def is_long(text: str) -> bool:
    """More than `FOLD_MIN_LINES` non-empty lines or `FOLD_MIN_CHARS` characters."""
    text = text.strip()
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) > FOLD_MIN_LINES or len(text) > FOLD_MIN_CHARS


def summary_end(text: str) -> int | None:
    """Where the first paragraph ends (after its blank line); None while there is no such line."""
    start = len(text) - len(text.lstrip())
    blank = _BLANK_LINE.search(text, start)
    if blank is None:
        return None
    end = blank.end()
    while end < len(text) and text[end] in "\r\n":
        end += 1
    return end


def split_summary(text: str) -> tuple[str, str]:
    """(first paragraph with its blank line, the rest); the rest is "" without a blank line."""
    end = summary_end(text)
    return (text, "") if end is None else (text[:end], text[end:])


def split_section(rest: str) -> tuple[str, str]:
    """(lead-in kept in view, the section from its first heading on): a question or note before
    the plan's heading stays readable; without a heading the whole rest is the section."""
    heading = _HEADING.search(rest)
    if heading is None:
        return "", rest
    return rest[: heading.start()], rest[heading.start() :]


def fold_rest(rest: str) -> tuple[str, str]:
    """What follows the summary → (text to show, section to fold; "" when short or missing)."""
    lead, section = split_section(rest)
    if section.strip() and is_long(section):
        return lead, section
    return rest, ""


def fold(text: str) -> tuple[str, str]:
    """A whole reply → (what to show first, section to fold; "" when there is nothing long)."""
    head, rest = split_summary(text)
    shown, section = fold_rest(rest)
    return head + shown, section
