"""Split a document by headings, then paragraphs, into overlapping chunks that know their place.

Each chunk keeps `source`, `title`, `section` (heading path) and `chunk_index`; `index_text`
prefixes the body with title and section, which is what gets embedded and BM25-indexed, so a
short paragraph under "Base plan" still matches a question about the base plan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.language import detect_language
from knowledge.loaders import Document

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
# A sentence ends with . ! ? … (optionally closed by a quote/bracket) followed by space and a
# capital, digit, quote or list marker; "e.g. x", "$10.99" and "v1.2" are not sentence ends.
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'»)\]]*\s+(?=[\"'«(\[]?[A-ZÀ-ÖØ-Þ0-9*•\-])")


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


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`; line breaks (list items, table rows) also end a sentence."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            out.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return out


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
            stack.append((level, match.group(2).strip()))
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


def _pieces(body: str, size: int) -> list[tuple[str, bool]]:
    """(piece, starts a paragraph): paragraphs, or sentences/word windows of long paragraphs."""
    out: list[tuple[str, bool]] = []
    for paragraph in re.split(r"\n\s*\n", body):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        if len(paragraph) <= size:
            out.append((paragraph, True))
            continue
        parts: list[str] = []
        for sentence in split_sentences(paragraph):
            parts.extend([sentence] if len(sentence) <= size else _hard_split(sentence, size))
        out.extend((part, i == 0) for i, part in enumerate(parts))
    return out


def _tail(text: str, overlap: int) -> str:
    """The last ~`overlap` chars of `text`, starting at a sentence (or else word) boundary."""
    if overlap <= 0 or len(text) <= overlap:
        return "" if overlap <= 0 else text
    window = text[-overlap:]
    sentences = _SENTENCE_END.split(window)
    if len(sentences) > 1:
        return window[window.index(sentences[1]):].strip() if sentences[1] else ""
    space = window.find(" ")
    return window[space + 1 :].strip() if space != -1 else window


def pack(body: str, size: int, overlap: int) -> list[str]:
    """Greedy paragraph packing up to `size` chars; consecutive chunks share ~`overlap` chars."""
    size = max(size, 50)
    overlap = max(0, min(overlap, size // 2))
    chunks: list[str] = []
    current = ""
    for piece, new_paragraph in _pieces(body, size):
        joiner = "\n\n" if new_paragraph else " "
        if current and len(current) + len(joiner) + len(piece) > size:
            chunks.append(current)
            tail = _tail(current, overlap)
            fits = tail and len(tail) + len(piece) + 2 <= size + overlap
            current = f"{tail}{joiner}{piece}" if fits else piece
        else:
            current = f"{current}{joiner}{piece}" if current else piece
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
    return chunks
