"""Word (.docx) → Markdown with python-docx: headings, lists, tables and code kept as units.

Paragraph styles carry the structure in Word files ("Heading 2", "List Bullet", "Title"), so
they are read rather than guessed from font sizes; runs in a monospace font or a code style
become fenced code, consecutive ones one block.
"""

from __future__ import annotations

import io
import re
from typing import Any

from docx import Document as open_docx
from docx.table import Table
from docx.text.paragraph import Paragraph

_MONOSPACE = re.compile(r"courier|consolas|mono|menlo|code", re.IGNORECASE)


def _style_name(paragraph: Any) -> str:
    try:
        return (paragraph.style.name or "") if paragraph.style is not None else ""
    except (KeyError, AttributeError):
        return ""


def _is_code(paragraph: Any, style: str) -> bool:
    if _MONOSPACE.search(style):
        return True
    runs = [r for r in paragraph.runs if r.text.strip()]
    return bool(runs) and all(r.font.name and _MONOSPACE.search(r.font.name) for r in runs)


def _inline(paragraph: Any) -> str:
    parts = []
    for run in paragraph.runs:
        text = run.text
        if not text:
            continue
        if run.font.name and _MONOSPACE.search(run.font.name) and text.strip():
            text = f"`{text.strip()}`"
        elif run.bold and text.strip():
            text = f"**{text.strip()}** " if text.endswith(" ") else f"**{text.strip()}**"
        parts.append(text)
    return "".join(parts).strip() or paragraph.text.strip()


def _table(table: Any) -> str:
    rows = []
    for row in table.rows:
        cells = [cell.text.replace("\n", " ").replace("|", "\\|").strip() for cell in row.cells]
        rows.append(cells)
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows[1:]])


def docx_to_markdown(raw: bytes) -> tuple[str, str | None]:
    """(Markdown, title or None); raises ValueError (or the zip/XML error) on a broken file."""
    document = open_docx(io.BytesIO(raw))
    title = (document.core_properties.title or "").strip() or None
    blocks: list[str] = []
    code: list[str] = []
    numbered = 0

    def flush_code() -> None:
        if code:
            blocks.append("```\n" + "\n".join(code) + "\n```")
            code.clear()

    for item in document.iter_inner_content():
        if isinstance(item, Table):
            flush_code()
            blocks.append(_table(item))
            continue
        if not isinstance(item, Paragraph):
            continue
        style = _style_name(item)
        if item.text.strip() and _is_code(item, style):
            code.append(item.text.rstrip())
            continue
        flush_code()
        text = _inline(item)
        if not text:
            continue
        heading = re.match(r"heading\s*(\d)", style, re.IGNORECASE)
        if style.lower() == "title":
            title = title or text
            blocks.append(f"# {text}")
        elif heading:
            blocks.append("#" * min(int(heading.group(1)) + (1 if title else 0), 6) + " " + text)
            title = title or (text if heading.group(1) == "1" else None)
        elif "list number" in style.lower():
            numbered += 1
            blocks.append(f"{numbered}. {text}")
            continue
        elif "list" in style.lower():
            blocks.append(f"- {text}")
        else:
            blocks.append(text)
        numbered = 0
    flush_code()
    # consecutive list items form one list (one block); other blocks are paragraphs
    out: list[str] = []
    for block in blocks:
        if out and re.match(r"^(- |\d+\. )", block) and re.match(r"^(- |\d+\. )", out[-1].split("\n")[-1]):
            out[-1] += "\n" + block
        else:
            out.append(block)
    return "\n\n".join(out), title
