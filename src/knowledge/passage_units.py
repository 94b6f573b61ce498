"""Cut a retrieved passage into the units an answer can quote whole.

A passage is Markdown-flavoured text. Quoting it sentence by sentence loses what a reader needs:
a table row without its header, a list item without the sentence that introduces it, a code
line without its block, a sentence that opens on "It". So the passage is read as blocks first:

- prose paragraphs (hard-wrapped lines joined) → sentences, each knowing the sentence before it
  (its antecedent when it opens on a pronoun); a label ("The fastest way.", "Confirm.") is not one;
- tables → one unit per row, rendered with the header ("Premium — Monthly price: $25/month;
  Billed annually: $300/year.");
- lists → one unit per item, plus the whole list (numbered steps stay a numbered list), each with
  the sentence that introduces the list;
- fenced code → the whole block, indentation kept, with the sentence that introduces it.

Markdown emphasis is dropped and links reduced to their label (the link targets are kept, so a
"Read X" pointer can be followed to the linked article).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from knowledge.fragments import is_label, opens_on_name
from knowledge.markup import TABLE_RULE
from relais.language import words
from relais.sentences import split_sentences

_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST = re.compile(r"^(\s*)([-*+•]|\d+[.)])\s+(.*)$")
_SYMBOL_SPAN = re.compile(r"`([^\w\s`]{1,3})`")  # a code span holding only a symbol or two
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


@dataclass
class Unit:
    """One quotable piece of a passage.

    `kind` is sentence | row | item | list | code; `text` is what the answer shows; `lead` the
    sentence that introduces a list/table/code block (shown before it when it is quoted alone);
    `previous` the sentence before a prose sentence; `links` the (label, target) pairs it held.
    """

    kind: str
    text: str
    position: int
    block: int
    lead: str = ""
    previous: str = ""
    numbered: bool = False
    links: list[tuple[str, str]] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    marker: str = ""  # an item's marker as in the source, indented by its depth ("3.", "   -")
    markers: list[str] = field(default_factory=list)  # a list's item markers, in order


def plain(text: str) -> tuple[str, list[tuple[str, str]]]:
    """Markdown inline → plain text, with the links it held."""
    links = [(m.group(1), m.group(2)) for m in _LINK.finditer(text)]
    text = _LINK.sub(r"\1", text)
    text = _SYMBOL_SPAN.sub(r"\1", text)  # "Ctrl `+` Shift `+` N `→` Lock": the `+` is not code
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    text = text.replace("**", "")
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?!\w)", r"\1", text)
    return " ".join(text.split()), links


def _cells(line: str) -> list[str]:
    return [plain(c)[0] for c in line.strip().strip("|").split("|")]


def _row_text(header: list[str], cells: list[str]) -> str:
    """A table row read with its header: "Premium — Monthly price: $25/month; Billed annually: …"."""
    label, values = cells[0], cells[1:]
    if label[:1].islower() and header and header[0]:
        label = f"{header[0]} {label}"  # "emails" → "Queue emails": a row never opens in lower case
    if len(cells) == 2:
        return f"{label}: {values[0]}"
    pairs = [f"{h}: {v}" if h else v for h, v in zip(header[1:], values) if v]
    return f"{label} — " + "; ".join(pairs)


def _ensure_period(text: str) -> str:
    text = text.rstrip(" ,;")
    return text if re.search(r"[.!?…:]$", text) else f"{text}."


def capitalise(text: str) -> str:
    """`text` opening on a capital, unless it opens on a name written in lower case ("iPhone")."""
    return text[:1].upper() + text[1:] if text and not opens_on_name(text) else text


class _Builder:
    def __init__(self) -> None:
        self.units: list[Unit] = []
        self.block = 0
        self.last_sentence = ""

    def add(self, unit: Unit) -> None:
        unit.position = len(self.units)
        self.units.append(unit)

    def paragraph(self, lines: list[str]) -> None:
        text, links = plain(" ".join(line.strip() for line in lines))
        previous = ""
        for sentence in split_sentences(text):
            if is_label(sentence):
                continue  # "The fastest way." under "In-app chat" is a label, not a quotable statement
            own = [link for link in links if link[0] in sentence]
            self.add(Unit("sentence", sentence, 0, self.block, previous=previous, links=own))
            previous = sentence
        self.last_sentence = previous
        self.block += 1

    def table(self, lines: list[str]) -> None:
        rows = [line for line in lines if not TABLE_RULE.match(line)]
        if not rows:
            return
        header = _cells(rows[0])
        lead = self.last_sentence if self.last_sentence.endswith(":") else ""
        for line in rows[1:]:
            cells = _cells(line)
            if len(cells) < 2 or not any(cells):
                continue
            cells += [""] * (len(header) - len(cells))
            links = plain(line)[1]
            self.add(Unit("row", _ensure_period(_row_text(header, cells)), 0, self.block, lead=lead, links=links))
        self.block += 1

    def listing(self, items: list[tuple[str, str, int]]) -> None:
        """`items`: (text, source marker, indent); nesting and the source's numbering are kept.
        A passage cut inside a list may open on sub-items whose step is in the passage before:
        they are a list of their own, not sub-items of nothing ahead of the next step."""
        top = min(indent for _, _, indent in items)
        orphans = next((k for k, (_, _, indent) in enumerate(items) if indent == top), 0)
        if orphans:
            self._listing(items[:orphans])
            items = items[orphans:]
        self._listing(items)

    def _listing(self, items: list[tuple[str, str, int]]) -> None:
        lead = self.last_sentence if self.last_sentence.endswith(":") else ""
        numbered = any(m[:1].isdigit() for _, m, indent in items if indent == min(i for _, _, i in items))
        indents = sorted({indent for _, _, indent in items})
        texts: list[str] = []
        markers: list[str] = []
        for raw, marker, indent in items:
            text, links = plain(raw)
            if not text:
                continue
            texts.append(capitalise(text.rstrip(",;")))
            markers.append("   " * indents.index(indent) + (marker if marker[:1].isdigit() else "-"))
            self.add(Unit("item", texts[-1], 0, self.block, lead=lead, links=links, numbered=numbered,
                          marker=markers[-1]))
        if len(texts) >= 2:
            self.add(Unit("list", render_list(texts, numbered, markers), 0, self.block, lead=lead,
                          numbered=numbered, items=texts, markers=markers))
        self.block += 1

    def code(self, lines: list[str]) -> None:
        lead = self.last_sentence
        self.add(Unit("code", "\n".join(lines), 0, self.block, lead=lead))
        self.block += 1


CAPTION_WORDS = 3  # "Bash", "PowerShell", "macOS / Linux": a tab's caption, not a sentence


def captions_code(units: list[Unit], k: int) -> bool:
    """Whether `units[k]` is a bare caption over the code block right after it (a tabbed page's
    "Bash" once its icons are read away): a few words with no sentence's end. A sentence ending on
    ":" before it introduces that block; the caption only names the tab."""
    if not 0 <= k < len(units) - 1:
        return False
    unit = units[k]
    return unit.kind == "sentence" and 0 < len(words(unit.text)) <= CAPTION_WORDS \
        and not unit.text.rstrip().endswith((".", ":", "!", "?")) and units[k + 1].kind == "code"


def render_list(items: list[str], numbered: bool, markers: list[str] | None = None) -> str:
    """A list as Markdown: with the source's markers (nesting, numbering) when known. A last item
    ending with ":" announced what the page showed next (a screenshot, gone from the text): it
    ends the list with a full stop, or it reads as a lead-in to nothing."""
    if items and items[-1].endswith(":"):
        items = [*items[:-1], items[-1][:-1].rstrip() + "."]
    if markers and len(markers) == len(items):
        return "\n".join(f"{m} {t}" for m, t in zip(markers, items))
    return "\n".join(f"{i}. {t}" if numbered else f"- {t}" for i, t in enumerate(items, 1))


def units_of(text: str) -> list[Unit]:
    """The quotable units of one passage, in document order."""
    builder = _Builder()
    lines = text.splitlines()
    i = 0
    prose: list[str] = []

    def flush_prose() -> None:
        if prose:
            builder.paragraph(prose)
            prose.clear()

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if _FENCE.match(line):
            flush_prose()
            fence = _FENCE.match(line).group(1)  # type: ignore[union-attr]
            block = [line.rstrip()]
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                block.append(lines[i].rstrip())
                i += 1
            if i < len(lines):
                block.append(lines[i].rstrip())
                i += 1
                builder.code(block)
            # an unclosed fence (the passage was cut) is never quoted
            continue
        if stripped.startswith("|"):
            flush_prose()
            table = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                table.append(lines[i])
                i += 1
            builder.table(table)
            continue
        match = _LIST.match(line)
        if match:
            flush_prose()
            items: list[tuple[str, str, int]] = []
            while i < len(lines):
                m = _LIST.match(lines[i])
                if m:
                    items.append((m.group(3), m.group(2), len(m.group(1).expandtabs(4))))
                elif lines[i].strip() and items and lines[i].startswith((" ", "\t")):
                    items[-1] = (f"{items[-1][0]} {lines[i].strip()}", *items[-1][1:])  # continued item
                else:
                    break
                i += 1
            builder.listing(items)
            continue
        if not stripped or stripped.startswith("#"):
            flush_prose()
        else:
            prose.append(stripped)
        i += 1
    flush_prose()
    return builder.units
