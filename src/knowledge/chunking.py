"""Split a document by headings, then structural blocks, into chunks that know their place.

Headings, lists, tables and fenced code are units: a code block is never split or flattened
(a long one is a chunk of its own, indentation kept), prose is joined across hard line breaks
before it is cut at sentences, and a long table is cut between rows with its header repeated.

Each chunk keeps `source`, `title`, `section` (heading path) and `chunk_index`; `index_text`
prefixes the body with title and section, which is what gets embedded and BM25-indexed, so a
short paragraph under "Base plan" still matches a question about the base plan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.fragments import ends_a_sentence
from knowledge.language import detect_language
from knowledge.loaders import Document
from knowledge.markup import TABLE_RULE
from relais.sentences import SENTENCE_END, split_sentences

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
CHUNKER_VERSION = 4  # part of the index manifest: a new chunker re-indexes everything
# A sentence ends with . ! ? … (optionally closed by a quote/bracket) followed by space and a
# capital, digit, quote or list marker; "e.g. x", "$10.99" and "v1.2" are not sentence ends.


@dataclass(frozen=True)
class Chunk:
    """One retrievable passage of a document."""

    text: str
    source: str
    title: str
    section: str
    chunk_index: int
    language: str = "en"

    @property
    def id(self) -> str:
        return f"{self.source}#{self.chunk_index}"

    @property
    def heading(self) -> str:
        """Title and section as one line ("Plans and pricing — Base plan")."""
        if self.section and self.section != self.title:
            return f"{self.title} — {self.section}" if self.title else self.section
        return self.title

    @property
    def index_text(self) -> str:
        """What is embedded and indexed lexically: heading line, then the body."""
        return f"{self.heading}\n{self.text}" if self.heading else self.text


_EMPHASIS = re.compile(r"(?<![\w*])(\*\*|\*)(?=[^\s*])(.+?)(?<=[^\s*])\1(?![\w*])")
# `_` emphasis only between non-word characters and around more than one word: `on_chat_start`
# and `__init__` are names
_UNDERSCORE_EMPHASIS = re.compile(r"(?<![\w_])(__|_)(?=[^\s_])([^_\n]*?\s[^_\n]*?)(?<=[^\s_])\1(?![\w_])")


def heading_name(raw: str) -> str:
    """A heading as a person reads it: "## 1. **Présentation**" is "1. Présentation" (GitBook
    bolds headings; the markers would reach the section path, the citations and the encoder)."""
    name = _UNDERSCORE_EMPHASIS.sub(r"\2", _EMPHASIS.sub(r"\2", raw)).replace("**", "")
    return re.sub(r"^[-–•]\s+", "", " ".join(name.split()))  # "#### _- Avis externes :_": a dash is no name


def split_sections(text: str, title: str = "") -> list[tuple[str, str]]:
    """(section path, body) pairs in order; the path joins nested headings with " > "."""
    sections: list[tuple[str, str]] = []
    stack: list[tuple[int, str]] = []
    body: list[str] = []
    in_fence = False

    def flush() -> None:
        content = "\n".join(body).strip()
        if content:
            names = [name for _, name in stack]
            if names and names[0] == title:
                names = names[1:]
            sections.append((" > ".join(names), content))
        body.clear()

    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            flush()
            level = len(match.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, heading_name(match.group(2))))
        else:
            body.append(line)
    flush()
    return sections


def _hard_split(text: str, size: int) -> list[str]:
    """Split an over-long sentence at word boundaries into pieces of at most `size` chars."""
    pieces, current = [], ""
    words: list[str] = []
    for word in text.split():  # a "word" longer than a chunk (a URL, a hash) is cut too
        words += [word[i : i + size] for i in range(0, len(word), size)]
    for word in words:
        if current and len(current) + 1 + len(word) > size:
            pieces.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        pieces.append(current)
    return pieces


@dataclass(frozen=True)
class Block:
    """One structural unit of a section body: prose, list, table or code."""

    kind: str  # "prose" | "list" | "table" | "code"
    text: str


_LIST_ITEM = re.compile(r"^\s*([-*+•]|\d+[.)])\s+")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
# Beyond this a code block is split at blank lines (each part fenced again) — a generated file
# pasted whole would otherwise become one chunk of megabytes.
CODE_BLOCK_HARD_CAP = 20_000
# Prose this short before a code block that does not fit beside it goes with the code: it is what
# introduces the example, and a chunk of one short sentence matches questions on its words alone.
LEAD_IN_CHARS = 200


def split_blocks(body: str) -> list[Block]:
    """Blocks in order. Fenced code keeps every line and blank line as written; a list item's
    wrapped lines join the item; a paragraph's hard line breaks are joined into one line."""
    blocks: list[Block] = []
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(1)
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(marker):
                j += 1
            blocks.append(Block("code", "\n".join(lines[i : j + 1]).rstrip()))
            i = j + 1
            continue
        if _TABLE_ROW.match(line):
            j = i
            while j < len(lines) and _TABLE_ROW.match(lines[j]):
                j += 1
            blocks.append(Block("table", "\n".join(l.strip() for l in lines[i:j])))
            i = j
            continue
        if _LIST_ITEM.match(line):
            items: list[str] = []
            j = i
            while j < len(lines):
                current = lines[j]
                if _LIST_ITEM.match(current):
                    items.append(current.rstrip())
                elif _TABLE_ROW.match(current) or _FENCE.match(current):
                    break  # a step's table (or code) is a block of its own: joined, it read "|Option|…| |---|"
                elif current.strip() and items and (current.startswith((" ", "\t")) or not _starts_block(current)):
                    if not lines[j - 1].strip() and not ends_a_sentence(items[-1]):
                        items[-1] += "."  # "…taille maximale : 20 Mo" ends where the item's next paragraph starts
                    items[-1] += " " + current.strip()  # a wrapped list item
                elif not current.strip() and _list_goes_on(lines, j):
                    pass  # a loose list: blank lines between items, or before an item's indented paragraph
                else:
                    break
                j += 1
            blocks.append(Block("list", "\n".join(items)))
            i = j
            continue
        j = i
        paragraph: list[str] = []
        while j < len(lines) and lines[j].strip() and (j == i or not _starts_block(lines[j])):
            paragraph.append(lines[j].strip())
            j += 1
        blocks.append(Block("prose", " ".join(paragraph)))
        i = j
    return blocks


def _list_goes_on(lines: list[str], j: int) -> bool:
    """After the blank line `j` inside a list: the next text is another item, or a paragraph
    indented under the last item (a step's note), not the prose after the list."""
    k = j + 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k >= len(lines):
        return False
    return bool(_LIST_ITEM.match(lines[k])) or (lines[k].startswith(("  ", "\t")) and not _FENCE.match(lines[k]))


def _starts_block(line: str) -> bool:
    return bool(_FENCE.match(line) or _TABLE_ROW.match(line) or _LIST_ITEM.match(line))


def _split_table(text: str, size: int) -> list[str]:
    """Row groups of at most ~`size` chars, each repeating the header and its rule."""
    rows = text.split("\n")
    header = rows[:2] if len(rows) > 1 and TABLE_RULE.match(rows[1]) else rows[:0]
    body = rows[len(header):]
    parts, current = [], list(header)
    for row in body:
        if len(current) > len(header) and len("\n".join(current + [row])) > size:
            parts.append("\n".join(current))
            current = list(header)
        current.append(row)
    if len(current) > len(header) or not parts:
        parts.append("\n".join(current))
    return parts


def _split_code(text: str) -> list[str]:
    """A code block whole; past CODE_BLOCK_HARD_CAP, parts cut at blank lines, fenced again."""
    if len(text) <= CODE_BLOCK_HARD_CAP:
        return [text]
    lines = text.split("\n")
    opening = lines[0]
    marker = _FENCE.match(opening).group(1)  # type: ignore[union-attr]
    closed = len(lines) > 1 and lines[-1].strip().startswith(marker)
    inner = lines[1:-1] if closed else lines[1:]
    parts, current = [], []
    for line in inner:
        current.append(line)
        if not line.strip() and len("\n".join(current)) > CODE_BLOCK_HARD_CAP // 2:
            parts.append(current)
            current = []
    if current:
        parts.append(current)
    return [opening + "\n" + "\n".join(part).strip("\n") + "\n" + marker for part in parts]


def _units(body: str, size: int) -> list[tuple[str, str, bool]]:
    """(text, kind, starts a block) units no longer than `size`, except whole code blocks."""
    out: list[tuple[str, str, bool]] = []
    for block in split_blocks(body):
        if block.kind == "code":
            out.extend((part, "code", True) for part in _split_code(block.text))
        elif len(block.text) <= size:
            out.append((block.text, block.kind, True))
        elif block.kind == "table":
            out.extend((part, "table", True) for part in _split_table(block.text, size))
        elif block.kind == "list":
            items = block.text.split("\n")
            for i, item in enumerate(items):
                pieces = [item] if len(item) <= size else [
                    part for sentence in split_sentences(item, lines_end_sentences=True)
                    for part in ([sentence] if len(sentence) <= size else _hard_split(sentence, size))]
                out.extend((piece, "list", i == 0 and k == 0) for k, piece in enumerate(pieces))
        else:
            parts: list[str] = []
            for sentence in split_sentences(block.text, lines_end_sentences=True):
                parts.extend([sentence] if len(sentence) <= size else _hard_split(sentence, size))
            out.extend((part, "prose", i == 0) for i, part in enumerate(parts))
    return out


def _tail(text: str, overlap: int) -> str:
    """The last ~`overlap` chars of `text`, starting at a sentence (or else word) boundary."""
    if overlap <= 0 or len(text) <= overlap:
        return "" if overlap <= 0 else text
    window = text[-overlap:]
    sentences = SENTENCE_END.split(window)
    if len(sentences) > 1:
        return window[window.index(sentences[1]):].strip() if sentences[1] else ""
    space = window.find(" ")
    return window[space + 1 :].strip() if space != -1 else window


def pack(body: str, size: int, overlap: int) -> list[str]:
    """Greedy packing of structural units up to `size` chars. Consecutive chunks share ~`overlap`
    chars of prose; code blocks and tables are never cut (a long code block is a chunk alone),
    and a long table's parts each repeat its header."""
    size = max(size, 50)
    overlap = max(0, min(overlap, size // 2))
    chunks: list[str] = []
    current, current_kind, last_piece = "", "", ""
    for piece, kind, new_block in _units(body, size):
        same_item = kind in ("prose",) and not new_block
        joiner = " " if same_item else ("\n" if kind == "list" and current_kind == "list" and not new_block else "\n\n")
        if current and len(current) + len(joiner) + len(piece) > size:
            short = max(overlap, LEAD_IN_CHARS)
            alone = kind == "code" and current_kind == "prose" and len(current) <= short
            lead_in = alone or (kind == "code" and current_kind == "prose"
                                and last_piece.rstrip().endswith(":") and len(last_piece) <= short)
            if not alone:
                chunks.append(current)
            if alone:  # "Starters are suggestions…" then the example: a chunk of one sentence says nothing
                current = f"{current}\n\n{piece}"
            elif lead_in:  # "To retry only on network errors, subclass X:" travels with its code
                current = f"{last_piece}\n\n{piece}"
            else:
                tail = _tail(current, overlap) if current_kind == "prose" and kind == "prose" else ""
                fits = tail and len(tail) + len(piece) + 2 <= size + overlap
                current = f"{tail}{joiner}{piece}" if fits else piece
        else:
            current = f"{current}{joiner}{piece}" if current else piece
        current_kind, last_piece = kind, piece
    if current:
        chunks.append(current)
    return chunks


def chunk_document(doc: Document, source: str, chunk_size: int = 900, chunk_overlap: int = 150) -> list[Chunk]:
    """Chunks of `doc`, numbered in document order; `source` is the path shown to users."""
    language = detect_language(doc.text[:4000])
    chunks: list[Chunk] = []
    for section, body in split_sections(doc.text, doc.title):
        for text in pack(body, chunk_size, chunk_overlap):
            chunks.append(Chunk(text, source, doc.title, section, len(chunks), language))
    if not chunks and re.search(r"\w", doc.text):  # only headings: a page with text is still indexed
        names = [heading_name(m.group(2)) for m in map(_HEADING.match, doc.text.splitlines()) if m]
        chunks.append(Chunk(". ".join(names) or doc.text.strip(), source, doc.title, "", 0, language))
    return chunks
