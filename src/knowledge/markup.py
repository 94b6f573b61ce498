"""Templated Markdown → the Markdown a person reads on the rendered page.

Help centers are rarely plain Markdown: Jekyll/Liquid (`{% callout %}`, `{% icon %}`,
`{{site.baseurl}}`, `{% capture %}`), GitBook (`{% hint %}`, `{% content-ref %}`, `{% tabs %}`),
Hugo shortcodes (`{{< note >}}`), Docusaurus/MkDocs admonitions (`:::note`, `!!! note`), inline
HTML (tab bars, figures, `<br>`, icons) and entities (`&rarr;`, `&#x20;`). Indexed as is, that
markup reaches answers and the encoder. Here callouts, hints and admonitions keep their content
as prose under a label ("Note:", "Warning:"), tabs keep theirs under the tab's name, links and
HTML keep their visible text, images and builder-only tags go. Fenced code and inline code
spans are never touched. One job: text in, clean Markdown out.
"""

from __future__ import annotations

import html
import re

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")

# Callout/hint/admonition kinds → the label a reader sees (English; French pages get French labels).
_LABELS = {
    "note": "Note", "info": "Note", "information": "Note", "abstract": "Note", "summary": "Note",
    "seealso": "Note", "example": "Example", "quote": "Note",
    "tip": "Tip", "hint": "Tip", "success": "Tip", "check": "Tip", "done": "Tip",
    "important": "Important", "question": "Question", "faq": "Question",
    "warning": "Warning", "caution": "Warning", "attention": "Warning", "alert": "Warning",
    "danger": "Warning", "error": "Warning", "failure": "Warning", "bug": "Warning",
}
_FRENCH = {"Note": "Remarque", "Tip": "Astuce", "Important": "Important", "Warning": "Attention",
           "Example": "Exemple", "Question": "Question"}

_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_LIQUID_COMMENT = re.compile(r"\{%-?\s*comment\s*-?%\}.*?\{%-?\s*endcomment\s*-?%\}", re.DOTALL)
_LIQUID_RAW = re.compile(r"\{%-?\s*(?:end)?raw\s*-?%\}")
_BLOCK_OPEN = re.compile(r"\{%-?\s*(callout|hint)\b([^%]*)-?%\}", re.IGNORECASE)
_BLOCK_CLOSE = re.compile(r"\{%-?\s*end(?:callout|hint)\s*-?%\}", re.IGNORECASE)
_TAB = re.compile(r"\{%-?\s*tab\s+title=[\"']([^\"']+)[\"']\s*-?%\}")
_LIQUID_LINK = re.compile(r"\]\(\s*\{%-?\s*link\s+([^%]+?)\s*-?%\}\s*\)")
_IMAGE = re.compile(r"!\[[^\]]*\]\((?:<[^>]*>|[^)\s]*(?:\([^)\s]*\)[^)\s]*)*)(?:\s+\"[^\"]*\")?\)")
_ANGLE_LINK = re.compile(r"\]\(<([^>]*)>\)")
_LIQUID_TAG = re.compile(r"\{%-?.*?-?%\}", re.DOTALL)
_LIQUID_OUTPUT = re.compile(r"\{\{-?[^{}]*?-?\}\}")
_HUGO_OPEN = re.compile(r"\{\{[<%]\s*([a-zA-Z][\w-]*)([^{}]*?)\s*[>%]\}\}")
_HUGO_CLOSE = re.compile(r"\{\{[<%]\s*/\s*([a-zA-Z][\w-]*)\s*[>%]\}\}")
_DOCUSAURUS = re.compile(r"^(\s*):::+\s*([a-zA-Z]+)?(?:\[([^\]]*)\]|\s+(.*))?\s*$")
_MKDOCS = re.compile(r"^(\s*)(?:!!!|\?\?\?\+?)\s+([a-zA-Z]+)(?:\s+[\"']([^\"']*)[\"'])?\s*$")
_KRAMDOWN_ATTRS = re.compile(r"\{:\s*[^}]*\}")
_ICON_CHECK = re.compile(r"<i\b[^>]*\bfa-check\b[^>]*>\s*</i>", re.IGNORECASE)
_ICON_TIMES = re.compile(r"<i\b[^>]*\bfa-(?:times|close|minus)\b[^>]*>\s*</i>", re.IGNORECASE)
_EMPTY_ICON = re.compile(r"<(i|span)\b[^>]*>\s*</\1\s*>", re.IGNORECASE)
_DROP_ELEMENTS = re.compile(r"<(figure|script|style|iframe|svg|video|picture|nav)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE)
_TAB_BAR = re.compile(r"<ul\b[^>]*\bnav-tabs\b[^>]*>.*?</ul\s*>", re.DOTALL | re.IGNORECASE)
_HTML_ELEMENTS = (
    "a abbr b big blockquote br caption center cite code dd del details dfn div dl dt em figcaption font h1 h2 h3 "
    "h4 h5 h6 hr i img input ins kbd label li mark ol p pre q s samp section small span strike strong sub summary "
    "sup table tbody td tfoot th thead tr tt u ul var wbr button aside article header footer main"
).split()
_TAG = re.compile(r"</?(" + "|".join(_HTML_ELEMENTS) + r")\b(?:[^<>\"']|\"[^\"]*\"|'[^']*')*/?>", re.IGNORECASE)
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]{1,31});")
_BACKSLASH_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark: any ASCII punctuation ("\\=>", "\\<")


def _label(kind: str, french: bool) -> str:
    label = _LABELS.get(kind.lower().strip(), "Note")
    return _FRENCH[label] if french else label


def callout_label(kind: str, french: bool = False) -> str | None:
    """The label a callout/admonition kind is read under ("warning" → "Warning"), None if not one."""
    key = kind.lower().strip()
    if key not in _LABELS:
        return None
    return _label(key, french)


def _labelled(body: str, label: str, title: str = "") -> str:
    """A callout's content as prose under its label: "Note: first sentence…", or the label on its
    own line when the content opens on a list; a callout title joins the label ("Tip — Title:")."""
    body = body.strip("\n")
    lines = body.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    head = f"{label} — {title.strip()}" if title and title.strip() else label
    sep = " :" if label in _FRENCH.values() and label not in _LABELS.values() else ":"
    if not lines:
        return ""
    lines = _end_statements(lines)
    first = lines[0].strip()
    if not title and re.match(rf"^[*_]*{re.escape(label)}(?![\w'’])", first, re.IGNORECASE):
        return "\n\n" + "\n".join(lines) + "\n\n"  # "Attention, le jeton…" says its label already
    if re.match(r"^(?:[-*+•]|\d+[.)]|#{1,6})\s|^\||^\x04", first):
        return f"\n\n{head}{sep}\n" + "\n".join(line.strip() if i == 0 else line for i, line in enumerate(lines)) + "\n\n"
    return f"\n\n{head}{sep} {first}\n" + "\n".join(lines[1:]) + "\n\n"


_BLOCK_LINE = re.compile(r"^\s*(?:[-*+•]\s|\d+[.)]\s|#{1,6}\s|\||```|~~~|<|\x04)")
_TRAILING_TAGS = re.compile(r"(?:\s*(?:\{%-?.*?-?%\}|<br\s*/?>|<img\b[^>]*>))+$", re.IGNORECASE)
_MD_LINK = re.compile(r"\[([^\[\]]*)\]\([^()\s]*(?:\([^()\s]*\)[^()\s]*)*\)")
_ENDED = re.compile(r"[.!?…:;][\"'»)\]*_`]*$")


def _end_statements(lines: list[str]) -> list[str]:
    """A callout's prose paragraphs end on a full stop: a callout holds statements ("Requests go
    to the endpoint: https://…/graphql"), and the answer composer reads a line that does not end
    like a sentence as a title, so the one line that answers was never quoted. Lists, tables,
    headings and code are left as they are."""
    out = list(lines)
    fenced = False
    for i, line in enumerate(out):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        ends_paragraph = i + 1 == len(out) or not out[i + 1].strip()
        # what the reader sees of the line: an image or a line break after the words is no text
        words = _TRAILING_TAGS.sub("", line.rstrip())
        seen = _MD_LINK.sub(r"\1", words)  # "[export a vault.](#export)" ends on its label's full stop
        if fenced or not words.strip() or not ends_paragraph or _BLOCK_LINE.match(line) or _ENDED.search(seen):
            continue
        start = i
        while start > 0 and out[start - 1].strip():
            start -= 1
        if not _BLOCK_LINE.match(out[start]):
            out[i] = words + "." + line.rstrip()[len(words):]
    return out


def _dedent(block: str) -> str:
    lines = block.split("\n")
    widths = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
    cut = min(widths, default=0)
    return "\n".join(line[cut:] for line in lines)


def _liquid_blocks(text: str, french: bool) -> str:
    """`{% callout kind %}…{% endcallout %}` and GitBook `{% hint style="kind" %}…{% endhint %}`."""
    out, pos = [], 0
    for match in _BLOCK_OPEN.finditer(text):
        if match.start() < pos:
            continue
        close = _BLOCK_CLOSE.search(text, match.end())
        if not close:
            continue
        args = match.group(2)
        style = re.search(r"style\s*=\s*[\"']?(\w+)", args)
        kind = style.group(1) if style else (args.split() or ["info"])[0]
        title = re.search(r"title\s*=\s*[\"']([^\"']+)[\"']", args)
        before = text[pos:match.start()]
        line_start = before.rfind("\n") + 1
        indent = before[line_start:] if not before[line_start:].strip() else ""
        out.append(before[:line_start] if indent else before)
        block = _labelled(_dedent(text[match.end():close.start()]), _label(kind, french),
                          title.group(1) if title else "")
        out.append("\n".join(indent + line if line.strip() else line for line in block.split("\n")))
        pos = close.end()
    out.append(text[pos:])
    return "".join(out)


_FENCE_SLOT = re.compile(r"^([ \t]*)\x04(\d+)\x04[ \t]*$", re.MULTILINE)


def _fence_end(line: str, fence: str) -> bool:
    match = _FENCE.match(line)
    return bool(match) and match.group(1) == fence and line.strip().strip(fence[0]) == ""


def _set_fences_aside(text: str) -> tuple[str, list[list[str]]]:
    """Each fenced code block replaced by one slot line (at the fence's indentation)."""
    lines, out, blocks = text.split("\n"), [], []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            out.append(lines[i])
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if _fence_end(lines[j], match.group(1))), len(lines) - 1)
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        out.append(f"{indent}\x04{len(blocks)}\x04")
        blocks.append(lines[i : end + 1])
        i = end + 1
    return "\n".join(out), blocks


def _put_fences_back(text: str, blocks: list[list[str]]) -> str:
    """The slots replaced by their code blocks, shifted as their slot was (a dedented callout body)."""
    def put(match: re.Match[str]) -> str:
        block = blocks[int(match.group(2))]
        shift = len(match.group(1)) - (len(block[0]) - len(block[0].lstrip()))
        if shift >= 0:
            return "\n".join(" " * shift + line if line.strip() else line for line in block)
        return "\n".join(line[min(-shift, len(line) - len(line.lstrip())):] for line in block)
    return _FENCE_SLOT.sub(put, text)


_LINK_DEFINITION = re.compile(r"^[ ]{0,3}\[(?!\^)([^\]]+)\]:[ \t]*<?(\S+?)>?(?:[ \t]+[\"'(].*[\"')])?[ \t]*$", re.MULTILINE)
_REFERENCE_LINK = re.compile(r"(?<!!)\[([^\[\]]+)\]\[([^\[\]]*)\]")


def _reference_links(text: str) -> str:
    """Reference-style links read like inline ones: `[Web Crypto][webcrypto]` with its definition
    `[webcrypto]: https://…` becomes `[Web Crypto](https://…)`, the definitions go (they were
    quoted as "[Web Crypto][webcrypto]"); a reference without a definition keeps its label."""
    targets = {m.group(1).strip().lower(): m.group(2) for m in _LINK_DEFINITION.finditer(text)}
    text = _LINK_DEFINITION.sub("", text)

    def link(match: re.Match[str]) -> str:
        label = match.group(1)
        target = targets.get((match.group(2) or label).strip().lower())
        return f"[{label}]({target})" if target else label

    return _REFERENCE_LINK.sub(link, text)


_QUOTE = re.compile(r"^[ ]{0,3}(?:>[ ]?)+")
_ALERT = re.compile(r"^\[!(\w+)\]\s*$")  # GitHub's "> [!NOTE]"
_QUOTE_LABEL = re.compile(r"^(?:\*\*|__)([^*_:]{2,20}?)(?:\s*:)?(?:\*\*|__)\s*:?\s*")  # "> **Astuce** …"


def _quote_label(word: str, french: bool) -> str | None:
    """The label a quote's bold first word stands for ("Note", "Astuce"), if it is one."""
    word = word.strip()
    if word.lower() in _LABELS:
        return _label(word.lower(), french)
    return word if word in {*_FRENCH.values(), "Avertissement"} else None


def _blockquotes(text: str, french: bool) -> str:
    """Blockquotes read without their ">" markers (they were quoted as "> Astuce En cas…"); one
    that opens on a GitHub alert ("[!WARNING]") or a bold label ("**Astuce**") is a callout and
    keeps that label like the others ("Astuce : En cas…"). Runs with code set aside (`_whole_page`)."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not _QUOTE.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        body: list[str] = []
        while i < len(lines) and _QUOTE.match(lines[i]):
            body.append(_QUOTE.sub("", lines[i], count=1))
            i += 1
        first = next((k for k, b in enumerate(body) if b.strip()), None)
        if first is not None:
            alert = _ALERT.match(body[first].strip())
            bold = _QUOTE_LABEL.match(body[first].strip())
            label = (_label(alert.group(1).lower(), french) if alert else
                     _quote_label(bold.group(1), french) if bold else None)
            if label:
                rest = body[first + 1:] if alert else [body[first].strip()[bold.end():]] + body[first + 1:]
                out.append(_labelled("\n".join(rest), label))
                continue
        out.extend(body)
    return "\n".join(out)


def _whole_page(text: str, french: bool) -> str:
    """What needs the whole page, with its code blocks and code spans set aside meanwhile:
    - blockquotes (a callout may be written as one);
    - callouts, hints and admonitions: a hint holding a command ("If you do, grant permission by
      running:" then a fence) was cut in two at the fence, so its tags were dropped as unknown and
      its label lost; a page may also quote `{% hint %}` in a code span;
    - reference-style links, whose definitions sit anywhere on the page."""
    text, blocks = _set_fences_aside(text)
    text, spans = code_spans_aside(text)
    text = _admonitions(_liquid_blocks(_blockquotes(text, french), french), french)
    text = _reference_links(text)
    return _put_fences_back(code_spans_back(text, spans), blocks)


def code_spans_aside(text: str) -> tuple[str, list[str]]:
    """`text` with its inline code spans replaced by placeholders, and the spans: markup rules
    never reach inside one (the `<iframe>` a sentence names is not a tag to strip)."""
    spans: list[str] = []

    def keep(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x02{len(spans) - 1}\x03"

    return _CODE_SPAN.sub(keep, text), spans


def code_spans_back(text: str, spans: list[str]) -> str:
    """The code spans `code_spans_aside` set aside, back in their places."""
    return re.sub(r"\x02(\d+)\x03", lambda m: spans[int(m.group(1))], text)


def _hugo(text: str, french: bool) -> str:
    """Hugo shortcodes: a known admonition name keeps its content under a label; others are unwrapped."""
    def block(match: re.Match[str]) -> str:
        name = match.group(1).lower()
        return _labelled(match.group(3), _label(name, french)) if name in _LABELS else match.group(3)

    pattern = re.compile(r"\{\{[<%]\s*([a-zA-Z][\w-]*)([^{}]*?)\s*[>%]\}\}(.*?)\{\{[<%]\s*/\s*\1\s*[>%]\}\}",
                         re.DOTALL)
    previous = None
    while previous != text:
        previous, text = text, pattern.sub(block, text)
    text = _HUGO_OPEN.sub("", text)
    return _HUGO_CLOSE.sub("", text)


def _admonitions(text: str, french: bool) -> str:
    """Docusaurus `:::note Title … :::` and MkDocs `!!! note "Title"` (indented body)."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        docu = _DOCUSAURUS.match(line)
        if docu and docu.group(2):
            body: list[str] = []
            i += 1
            while i < len(lines) and not re.match(r"^\s*:::+\s*$", lines[i]):
                body.append(lines[i])
                i += 1
            out.append(_labelled(_dedent("\n".join(body)), _label(docu.group(2), french),
                                 docu.group(3) or docu.group(4) or ""))
            i += 1
            continue
        mk = _MKDOCS.match(line)
        if mk:
            indent = len(mk.group(1))
            body = []
            i += 1
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
                body.append(lines[i])
                i += 1
            out.append(_labelled(_dedent("\n".join(body)), _label(mk.group(2), french), mk.group(3) or ""))
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


_TABLE_LINE = re.compile(r"^\s*\|.*\|")  # a table's first row: a pipe first and another after
# a table's header rule ("|---|:--:|", "|-|--|": GFM asks one dash per cell); chunking, passage units
# and the fragment rules read tables with it too
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _headerless_tables(text: str) -> str:
    """Pipe rows with no header rule (Kramdown renders them as a table with no header: a glossary,
    an options list inside a step) read as list items, "term: definition"; they were quoted with
    their pipes ("By default, Never.| |Maximum Access Count|…"). Tables with a rule are left as
    they are: their header names each cell."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not _TABLE_LINE.match(lines[i]) or TABLE_RULE.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        end = i
        while end < len(lines) and _CELL_SPLIT.search(lines[end]):  # a row may lack either end pipe
            end += 1
        run = lines[i:end]
        following = lines[end] if end < len(lines) else ""
        if any(TABLE_RULE.match(line) for line in run) or TABLE_RULE.match(following):
            out.extend(run)
        else:
            out.extend(_as_item(line) for line in run)
        i = end
    return "\n".join(out)


def _piped_tables(text: str) -> str:
    """GFM lets a table's rows, its header too, leave out their end pipes ("Collections |A logical
    unit…"); chunking and passage units know a row by its pipes, so such a row was read as prose
    and quoted with its cells run together. A ruled table's rows get both end pipes."""
    lines = text.split("\n")
    for i in range(1, len(lines)):
        if "|" not in lines[i] or not TABLE_RULE.match(lines[i]) or not _CELL_SPLIT.search(lines[i - 1]):
            continue
        end = i + 1
        while end < len(lines) and lines[end].strip() and _CELL_SPLIT.search(lines[end]):
            end += 1
        for k in [i - 1, *range(i + 1, end)]:
            lines[k] = _piped(lines[k])
    return "\n".join(lines)


def _piped(row: str) -> str:
    indent, body = row[: len(row) - len(row.lstrip())], row.strip()
    opening = "" if body.startswith("|") else "|"
    closing = "" if body.endswith("|") and not body.endswith("\\|") else "|"
    return f"{indent}{opening}{body}{closing}"


def _as_item(row: str) -> str:
    indent = row[: len(row) - len(row.lstrip())]
    body = row.strip()
    body = body.removeprefix("|")
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    cells = [c.strip() for c in _CELL_SPLIT.split(body)]
    cells = [c for c in cells if c]
    if not cells:
        return ""
    head, rest = cells[0], "; ".join(cells[1:])
    if not rest:
        return f"{indent}- {head}"
    colon = "" if re.search(r"[:.!?]\**$", head) else ":"
    return f"{indent}- {head}{colon} {rest}"


_QUESTION_LABEL = re.compile(r"^\s*(?:#{1,6}\s+)?(?:\*\*|__)?Q\s?:", re.MULTILINE)
_ANSWER_LABEL = re.compile(r"^(\s*)(?:\*\*|__)?(?:A|R)\s?:(?:\*\*|__)?[ \t]+(?=\S)", re.MULTILINE)


def _answer_labels(text: str) -> str:
    """A FAQ's "**A:**" before each answer goes when the page marks its questions "Q:": it labels
    the paragraph, it is not part of what the answer says ("A: High availability can be…")."""
    return _ANSWER_LABEL.sub(r"\1", text) if _QUESTION_LABEL.search(text) else text


def _html(text: str) -> str:
    """Inline HTML → its visible text (bold/italic/code kept as Markdown, list items as items)."""
    text = _TAB_BAR.sub("\n\n", text)
    text = _DROP_ELEMENTS.sub("\n\n", text)
    text = _ICON_CHECK.sub("Yes", text)
    text = _ICON_TIMES.sub("No", text)
    text = _EMPTY_ICON.sub("", text)

    def tag(match: re.Match[str]) -> str:
        raw, name = match.group(0), match.group(1).lower()
        closing = raw.startswith("</")
        if name in ("strong", "b"):
            return "**"
        if name in ("em", "i"):
            return "*"
        if name in ("code", "kbd", "tt", "samp"):
            return "`"
        if name == "img":
            return ""
        if name == "br":
            return "\x01"  # a line break: a space inside a table row, a new line elsewhere
        if name == "li":
            return "" if closing else "\x06"
        if name in ("p", "div", "section", "article", "blockquote", "details", "summary", "ul", "ol", "table",
                    "tr", "h1", "h2", "h3", "h4", "h5", "h6", "dl", "dt", "dd", "hr", "pre", "aside", "header",
                    "footer", "main", "center", "figcaption", "caption"):
            return "\x05"
        if name in ("td", "th"):
            return " "
        return ""

    text = _TAG.sub(tag, text)
    lines = []
    for line in text.split("\n"):
        if line.lstrip().startswith("|"):  # a table cell's paragraphs and items stay in its row
            line = _CELL_BREAKS.sub(_cell_break, line)
        line = line.replace("\x05", "\n\n").replace("\x06", "\n- ")
        if "\x01" in line:  # a new line stays in its list item: at the item's text column
            marker = re.match(r"^\s*(?:[-*+•]|\d+[.)])\s+", line)
            indent = " " * marker.end() if marker else line[: len(line) - len(line.lstrip())]
            line = re.sub(r"\s*\x01\s*", " " if line.lstrip().startswith("|") else "\n" + indent, line)
        lines.append(line)
    text = "\n".join(lines).replace("\x01", "\n")
    return re.sub(r"\*\*\s*\*\*", "", text)


_CELL_BREAKS = re.compile(r"[ \t]*[\x01\x05\x06][\x01\x05\x06 \t]*")  # <br>, a block's edge, an item


def _cell_break(match: re.Match[str]) -> str:
    """`<p>A</p><p>B</p>` in a table cell: "A. B", never a new line that would cut the row in two."""
    before, after = match.string[: match.start()].rstrip(), match.string[match.end():]
    if not before or before.endswith("|") or after.startswith("|") or not after.strip():
        return " "
    return " " if before[-1] in ".!?:;,…" else ". "


def _unescape(text: str) -> str:
    text = _ENTITY.sub(lambda m: html.unescape(m.group(0)), text)
    text = text.replace("\u00a0", " ").replace("\u200b", "").replace("\u202f", " ")
    return _BACKSLASH_ESCAPE.sub(r"\1", text)


def _tidy(text: str) -> str:
    text = re.sub(r"\[\s*\]\([^)]*\)", "", text)  # an empty link (its label was an icon)
    text = re.sub(r"\(\s*\)", "", text)  # "a green checkbox ( {% icon fa-check %} )." once the icon went
    lines = []
    for line in text.split("\n"):
        if line.rstrip().endswith("\\") and not line.rstrip().endswith("\\\\"):
            line = line.rstrip()[:-1]  # a GitBook hard line break
        line = re.sub(r"(?<=\S)[ \t]{2,}", " ", line.rstrip())
        line = re.sub(r"(?<=\S)\s+([.,])(?=\s|$)", r"\1", line) if not line.lstrip().startswith("|") else line
        line = re.sub(r"(?<=\w)\.\.(?=\s|$)", ".", line)  # "…altéré etc.." as the page's reader takes it
        lines.append(line)
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text)


def _prose(text: str, french: bool) -> str:
    """Clean one run of non-code lines; inline code spans are set aside and put back untouched."""
    text = _HTML_COMMENT.sub("", text)
    text = _LIQUID_COMMENT.sub("", text)
    text = _LIQUID_RAW.sub("", text)
    text, spans = code_spans_aside(text)
    text = _LIQUID_LINK.sub(r"](\1)", text)
    text = _IMAGE.sub("", text)
    text = _ANGLE_LINK.sub(lambda m: f"]({m.group(1).replace(' ', '%20')})", text)
    text = _TAB.sub(lambda m: f"\n\n###### {m.group(1)}\n\n", text)
    text = _hugo(text, french)
    text = _LIQUID_TAG.sub("", text)
    text = _LIQUID_OUTPUT.sub("", text)
    text = _KRAMDOWN_ATTRS.sub("", text)
    text = _piped_tables(text)
    text = _headerless_tables(text)
    text = _answer_labels(text)
    text = _html(text)
    text = _unescape(text)
    text = _tidy(text)
    return code_spans_back(text, spans)


def _is_french(text: str) -> bool:
    words = re.findall(r"[a-zàâçéèêëîïôûùüÿœ']+", text[:4000].lower())
    french = sum(w in ("le", "la", "les", "des", "est", "une", "vous", "pour", "dans", "du") for w in words)
    english = sum(w in ("the", "is", "and", "you", "to", "of", "for", "your", "in", "with") for w in words)
    return french > english


def clean_markup(text: str) -> str:
    """Markdown a person reads: template tags, shortcodes, admonitions, HTML and entities resolved;
    fenced code blocks kept as they are (their indentation too)."""
    french = _is_french(text)
    text = _whole_page(text, french)
    out: list[str] = []
    prose: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if fence is None and match:
            out.append(_prose("\n".join(prose), french))
            prose = []
            fence = match.group(1)
            out.append(re.sub(r"\{%-?.*?-?%\}", "", line) or line)
            continue
        if fence is not None:
            out.append(line)
            if _fence_end(line, fence):
                fence = None
            continue
        prose.append(line)
    out.append(_prose("\n".join(prose), french))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()
