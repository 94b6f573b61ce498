"""Just enough markdown structure for edits: paragraphs (blank-line blocks), links, sentences.

Paragraph numbers are what workers, gates and people talk about ("paragraph 3 still says
$10/month"), so every step splits an article the same way. Separators are kept, so an edit
of one paragraph leaves the rest of the file byte-for-byte identical.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_SEPARATOR = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)*")
_LINK_PATTERNS = (
    re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"),  # [text](target "title")
    re.compile(r"<((?:https?|mailto):[^>\s]+)>"),  # <https://...>
    re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE),  # [ref]: target
    re.compile(r"(?<![(<\w])(https?://[^\s)<>\]]+)"),  # bare URL
)
_CLAUSE_END = re.compile(r"(?<=[.!?;:])\s+(?=[\"'«(\[*_]?[A-ZÀ-Ý0-9$€£])|\n+")


@dataclass(frozen=True)
class Block:
    """One paragraph (blank-line separated block) and where it sits in the file."""

    index: int
    start: int
    end: int
    text: str


def blocks(text: str) -> list[Block]:
    """Paragraphs of `text`, in order; headings, tables and lists count as one block each."""
    found: list[Block] = []
    pos = 0
    for sep in _SEPARATOR.finditer(text):
        if text[pos:sep.start()].strip():
            found.append(Block(len(found), pos, sep.start(), text[pos:sep.start()]))
        pos = sep.end()
    tail = text[pos:].rstrip("\n")
    if tail.strip():
        found.append(Block(len(found), pos, pos + len(tail), tail))
    return found


def paragraph_texts(text: str) -> list[str]:
    """Just the paragraph strings, trailing spaces ignored (what the diff gate compares)."""
    return [re.sub(r"[ \t]+$", "", b.text, flags=re.MULTILINE) for b in blocks(text)]


def replace_blocks(text: str, replacements: dict[int, str]) -> str:
    """`text` with the given paragraphs replaced; everything else stays byte-identical."""
    out, pos = [], 0
    for block in blocks(text):
        if block.index in replacements:
            out.append(text[pos:block.start])
            out.append(replacements[block.index])
            pos = block.end
    out.append(text[pos:])
    return "".join(out)


def links(text: str) -> Counter[str]:
    """Every link target in the text (markdown, autolinks, references, bare URLs), counted."""
    targets: Counter[str] = Counter()
    for pattern in _LINK_PATTERNS:
        targets.update(match.group(1) for match in pattern.finditer(text))
    return targets


def title(text: str, fallback: str) -> str:
    """The first `# heading`, else the fallback (usually the file name)."""
    match = re.search(r"^#\s+(.+?)\s*#*\s*$", text, re.MULTILINE)
    return match.group(1).strip() if match else fallback


def clause_spans(paragraph: str) -> list[tuple[int, int]]:
    """(start, end) spans of the clauses of a paragraph: sentences, table rows and list lines, and
    the parts a `;` or `:` separates ("Premium: $30 a month; Base: $20"). Not the knowledge base's
    sentence splitter (`relais.sentences`): a price's context is its clause, and the wording diff
    compares clause by clause, by offsets into the text it edits."""
    spans, pos = [], 0
    for cut in _CLAUSE_END.finditer(paragraph):
        if cut.start() > pos:
            spans.append((pos, cut.start()))
        pos = cut.end()
    if pos < len(paragraph):
        spans.append((pos, len(paragraph)))
    return spans


def clause_at(paragraph: str, offset: int) -> str:
    """The clause of `paragraph` that contains character `offset`."""
    for start, end in clause_spans(paragraph):
        if start <= offset < end:
            return paragraph[start:end]
    return paragraph
