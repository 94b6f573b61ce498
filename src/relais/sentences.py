"""Sentence splitting: the one splitter the knowledge base's chunking and its composer share.

A sentence ends at `.`, `!`, `?` or `…` (closing quotes and brackets stay with it) before a
capital, a digit, a quote or a bullet; "e.g.", "a.m.", "n°.", "Sep." and the like do not end one
unless a number follows ("… etc. 3 guests max."), and none ends inside an open bracket.
The knowledge update splits price clauses (also at `;` and `:`) for its own job: see
`kb_update.markdown.clause_spans`."""

from __future__ import annotations

import re

SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'»)\]]*\s+(?=[\"'«(\[]?[A-ZÀ-ÖØ-Þ0-9*•])")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|a\.m|p\.m|approx|no|n°)\.$", re.IGNORECASE)
_MONTH = re.compile(r"\b(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.$", re.IGNORECASE)  # "Sep. 2020"


def split_sentences(text: str, *, lines_end_sentences: bool = False) -> list[str]:
    """The sentences of `text`, stripped. With `lines_end_sentences`, a line break (a list item,
    a table row) also ends one; otherwise `text` is one joined paragraph."""
    out: list[str] = []
    for line in text.splitlines() if lines_end_sentences else [text]:
        first_of_line = len(out)
        for piece in _pieces(line):
            piece = piece.strip()
            if not piece:
                continue
            if len(out) > first_of_line and (_ABBREVIATION.search(out[-1]) and not piece[:1].isdigit()
                                             or _MONTH.search(out[-1]) or _open_bracket(out[-1])):
                out[-1] = f"{out[-1]} {piece}"
            else:
                out.append(piece)
    return out


def _open_bracket(text: str) -> bool:
    """A bracket opened and not closed: the sentence goes on inside it ("(introduced Sep. 2020) …")."""
    return text.count("(") > text.count(")")


def _pieces(line: str) -> list[str]:
    """`line` cut after each sentence's closing quotes or brackets (kept: an answer never shows
    an opened bracket or quote without its end)."""
    pieces, start = [], 0
    for cut in SENTENCE_END.finditer(line):
        end = cut.start() + len(cut.group().rstrip())
        pieces.append(line[start:end])
        start = cut.end()
    pieces.append(line[start:])
    return pieces
