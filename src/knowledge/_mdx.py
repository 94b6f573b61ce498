"""MDX → Markdown: keep what a reader sees, drop what only the site builder needs.

Docs sites (Mintlify, Docusaurus, Nextra…) write pages in MDX: Markdown plus `import`/`export`
statements, JSX components (`<Card title=…>`, `<ParamField path=…>`) and inline SVG. Indexed
as-is, the tags and path data end up in answers. Here ESM statements, JSX comments and SVG are
dropped, tags are unwrapped, and the attributes that carry meaning for a reader (a card's
title, a field's name and type) become text. Fenced code is never touched.
"""

from __future__ import annotations

import re

from knowledge.markup import callout_label, code_spans_aside, code_spans_back

_FENCE = re.compile(r"^(\s*)(```|~~~)")
_ESM = re.compile(r"^(import|export)\s")
_JSX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.DOTALL)
_SVG = re.compile(r"<svg\b.*?</svg\s*>", re.DOTALL | re.IGNORECASE)
_TAG = re.compile(r"<(/?)([A-Za-z][\w.:-]*)((?:\s+(?:[^<>{}\"']|\"[^\"]*\"|'[^']*'|\{(?:[^{}]|\{[^{}]*\})*\})*)?)\s*(/?)>")
_ATTR = re.compile(r"([\w:-]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|\{\s*[\"'`]([^\"'`]*)[\"'`]\s*\}|\{((?:[^{}]|\{[^{}]*\})*)\}))?")
_JOIN_NEXT = "\x00"  # marks "the component's body continues this line"
_LITERAL = re.compile(r"^(?:-?\d+(?:\.\d+)?|true|false|null)$")  # a default={60} shown on the page
_BARE_EXPRESSION = re.compile(r"^\s*\{[^{}]*\}\s*$")

# Attributes that name a field or parameter (ParamField path="user_id", ResponseField name=…).
_NAME_ATTRS = ("name", "path", "query", "body", "header", "param", "field", "cookie")
# Attributes that title a block (Card, Accordion, Tab, Step, Update, Tooltip…).
_TITLE_ATTRS = ("title", "label", "heading")
_DROP_BLOCKS = re.compile(r"<(script|style)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE)


def _attributes(raw: str) -> dict[str, str | bool]:
    attrs: dict[str, str | bool] = {}
    for match in _ATTR.finditer(raw or ""):
        name = match.group(1)
        values = [v for v in match.group(2, 3, 4) if v is not None]
        if values:
            attrs[name] = values[0]
        elif match.group(5) is not None:  # a JS expression: a literal ({60}, {true}) reads as written
            attrs[name] = match.group(5).strip() if _LITERAL.match(match.group(5).strip()) else ""
        else:
            attrs[name] = True
    return attrs


def _opening_text(attrs: dict[str, str | bool]) -> str:
    """The visible text an opening tag stands for ("" for layout-only tags)."""
    name = next((str(attrs[a]) for a in _NAME_ATTRS if isinstance(attrs.get(a), str) and attrs[a]), "")
    if name:
        kind = attrs.get("type")
        text = f"`{name}`" + (f" ({kind})" if isinstance(kind, str) and kind else "")
        if attrs.get("required") is True or attrs.get("required") == "true":
            text += ", required"
        default = attrs.get("default")
        if isinstance(default, str) and default:
            text += f", default `{default}`"
        return "\n\n" + text + ":" + _JOIN_NEXT
    title = next((str(attrs[a]) for a in _TITLE_ATTRS if isinstance(attrs.get(a), str) and attrs[a]), "")
    description = attrs.get("description")
    parts = [f"**{title}**"] if title else []
    if isinstance(description, str) and description:
        parts.append(description)
    return ("\n\n" + " — ".join(parts) + "\n\n") if parts else ""


def _unwrap_tags(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        closing, _name, raw_attrs, _self_closing = match.groups()
        if closing:
            return "\n\n" if match.group(2)[:1].isupper() else ""
        attrs = _attributes(raw_attrs)
        label = callout_label(match.group(2)) if match.group(2)[:1].isupper() else None
        if label:  # <Note>, <Warning>, <Tip>…: the content is read under its label, as on the page
            title = next((str(attrs[a]) for a in _TITLE_ATTRS if isinstance(attrs.get(a), str) and attrs[a]), "")
            return f"\n\n{label} — {title}:{_JOIN_NEXT}" if title else f"\n\n{label}:{_JOIN_NEXT}"
        if match.group(2).lower() == "img":
            alt = attrs.get("alt")
            return str(alt) if isinstance(alt, str) else ""
        return _opening_text(attrs)

    return _TAG.sub(replace, text)


def _prose(block: str) -> str:
    """Convert a run of non-code lines."""
    block = _JSX_COMMENT.sub("", block)
    block = _SVG.sub("", block)
    block = _DROP_BLOCKS.sub("", block)
    lines, depth = [], 0
    for line in block.split("\n"):
        if depth == 0 and _ESM.match(line):
            depth = line.count("{") + line.count("(") + line.count("[") - line.count("}") - line.count(")") - line.count("]")
            depth = max(depth, 0)
            continue
        if depth > 0:  # the rest of a multi-line export/import
            depth += line.count("{") + line.count("(") + line.count("[") - line.count("}") - line.count(")") - line.count("]")
            depth = max(depth, 0)
            continue
        lines.append(line)
    text, spans = code_spans_aside("\n".join(lines))  # "The `<iframe>` tag…" names a tag, it holds none
    text = code_spans_back(_unwrap_tags(text), spans)
    # Component bodies are indented in the source; Markdown prose needs no indentation.
    out = []
    for line in text.split("\n"):
        if _BARE_EXPRESSION.match(line):
            continue
        stripped = line.strip()
        out.append(stripped if not re.match(r"^\s*([-*+]|\d+[.)])\s", line) else _list_line(line))
    joined = re.sub(_JOIN_NEXT + r"\s*", " ", "\n".join(out))
    return re.sub(r"\n{3,}", "\n\n", joined)


def _list_line(line: str) -> str:
    """Keep list nesting (two spaces per level) but drop the component's own indentation."""
    indent = len(line) - len(line.lstrip(" "))
    return " " * (2 * (indent // 4)) + line.strip() if indent >= 4 else line.strip()


def mdx_to_markdown(text: str) -> str:
    """Markdown with the text of components kept; fenced code blocks unchanged (dedented)."""
    out: list[str] = []
    prose: list[str] = []
    fence: tuple[str, str] | None = None  # (indent, marker) of the open fence
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if fence is None:
            if match:
                out.append(_prose("\n".join(prose)))
                prose = []
                fence = (match.group(1), match.group(2))
                out.append(line[len(fence[0]):])
            else:
                prose.append(line)
            continue
        indent, marker = fence
        out.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
        if match and line.strip().startswith(marker) and line.strip().strip(marker[0]) == "":
            fence = None
    out.append(_prose("\n".join(prose)))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()
