"""reStructuredText → Markdown through docutils' own parser (no regex guessing at underlines).

Sphinx projects use roles (:class:`Foo`) and directives (.. versionadded::, .. autoclass::) that
plain docutils does not know; they are registered here as "keep the text" so a Sphinx page
loads without a Sphinx install. The doctree is then written as the Markdown our chunker reads:
`#` headings, fenced code with its language, lists, pipe tables, admonitions as bold labels.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles
from docutils.statemachine import StringList

_SPHINX_ROLES = (
    "ref", "doc", "class", "func", "meth", "attr", "mod", "obj", "data", "const", "exc", "term",
    "envvar", "option", "program", "file", "kbd", "command", "samp", "any", "download", "guilabel",
    "menuselection", "abbr", "dfn", "py:class", "py:func", "py:meth", "py:attr", "py:mod", "py:obj",
    "py:data", "py:exc", "py:const",
)
_SPHINX_DIRECTIVES = (
    "versionadded", "versionchanged", "deprecated", "seealso", "toctree", "autoclass",
    "autofunction", "automodule", "automethod", "autoattribute", "literalinclude", "glossary",
    "currentmodule", "module", "function", "class", "method", "attribute", "index", "only",
    "highlight", "tabs", "tab", "card", "grid", "grid-item-card", "dropdown", "tab-set", "tab-item",
    "rubric", "centered", "hlist", "productionlist", "py:function", "py:class", "py:method",
)
_VERSION_LABELS = {
    "versionadded": "New in version", "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
}
_registered = False


def _register_sphinx_names() -> None:
    """Roles render their text as code; directives keep their arguments and content as text."""
    global _registered
    if _registered:
        return
    def literal_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                     options: dict | None = None, content: list | None = None) -> tuple[list, list]:
        shown = text.split("<", 1)[0].strip() if "<" in text and text.endswith(">") else text
        return [nodes.literal(rawtext, shown.lstrip("~!"))], []

    class KeepText(Directive):
        has_content = True
        optional_arguments = 10
        final_argument_whitespace = True
        option_spec = None  # any option is accepted and ignored

        def run(self) -> list:
            container = nodes.container()
            label = _VERSION_LABELS.get(self.name)
            words = " ".join(self.arguments)
            if label and words:  # ".. versionadded:: 2.3" + text: the text is content, not argument
                version, _, rest = words.partition(" ")
                container += nodes.paragraph(text=f"{label} {version}:")
                if rest.strip():
                    self.state.nested_parse(StringList(rest.strip().splitlines()), self.content_offset, container)
            elif words:
                container += nodes.paragraph(text=words)
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, container)
            return [container]

    KeepText.option_spec = _AnyOptions()
    for role in _SPHINX_ROLES:
        roles.register_local_role(role, literal_role)
    for name in _SPHINX_DIRECTIVES:
        directives.register_directive(name, KeepText)
    _registered = True


class _AnyOptions(dict):
    """An option_spec that accepts every option name (their values are not shown)."""

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        return lambda value: value


def rst_to_markdown(text: str) -> tuple[str, str | None]:
    """(Markdown, document title or None); raises ValueError on a document docutils rejects."""
    _register_sphinx_names()
    doctree = publish_doctree(text, settings_overrides={
        "report_level": 5, "halt_level": 5, "file_insertion_enabled": False, "raw_enabled": False,
        "doctitle_xform": False, "input_encoding": "unicode",
    })
    writer = _MarkdownWriter()
    body = writer.render(doctree).strip()
    return body, writer.first_title


class _MarkdownWriter:
    """Walks a docutils doctree and emits Markdown blocks."""

    def __init__(self) -> None:
        self.first_title: str | None = None

    def render(self, node: Any, depth: int = 0) -> str:
        return "\n\n".join(b for b in (self.block(child, depth) for child in node.children) if b.strip())

    def block(self, node: Any, depth: int) -> str:
        if isinstance(node, nodes.section):
            return self.render(node, depth + 1)
        if isinstance(node, nodes.title):
            title = self.inline(node)
            self.first_title = self.first_title or title
            return "#" * min(max(depth, 1), 6) + " " + title
        if isinstance(node, (nodes.paragraph, nodes.line_block)):
            return self.inline(node)
        if isinstance(node, nodes.literal_block):
            classes = [c for c in node.get("classes", []) if c not in ("code", "literal-block")]
            language = node.get("language") or (classes[0] if classes else "")
            return f"```{language}\n{node.astext().rstrip()}\n```"
        if isinstance(node, nodes.bullet_list):
            return "\n".join(self.item(item, "- ", depth) for item in node.children)
        if isinstance(node, nodes.enumerated_list):
            return "\n".join(self.item(item, f"{i}. ", depth) for i, item in enumerate(node.children, 1))
        if isinstance(node, nodes.definition_list):
            return "\n\n".join(self.definition(item, depth) for item in node.children)
        if isinstance(node, nodes.field_list):
            return "\n".join(
                f"- **{self.inline(f[0])}**: {self.render(f[1], depth)}" for f in node.children if len(f) == 2
            )
        if isinstance(node, nodes.table):
            return self.table(node)
        if isinstance(node, nodes.Admonition):
            label = node.tagname.capitalize() if node.tagname != "admonition" else ""
            inner = self.render(node, depth)
            return f"**{label}:** {inner}" if label else inner
        if isinstance(node, (nodes.comment, nodes.system_message, nodes.target, nodes.substitution_definition)):
            return ""
        if isinstance(node, nodes.Element):
            return self.render(node, depth)
        return node.astext()

    def item(self, item: Any, marker: str, depth: int) -> str:
        text = self.render(item, depth)
        lines = text.split("\n")
        return marker + lines[0] + "".join("\n  " + line if line else "\n" for line in lines[1:])

    def definition(self, item: Any, depth: int) -> str:
        term = next((c for c in item.children if isinstance(c, nodes.term)), None)
        body = next((c for c in item.children if isinstance(c, nodes.definition)), None)
        return f"**{self.inline(term) if term else ''}**: {self.render(body, depth) if body else ''}"

    def table(self, node: Any) -> str:
        rows = []
        for row in node.findall(nodes.row):
            rows.append([self.render(entry).replace("\n", " ").replace("|", "\\|") for entry in row.children])
        if not rows:
            return ""
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
        lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        return "\n".join(lines)

    def inline(self, node: Any) -> str:
        parts: list[str] = []
        for child in node.children:
            if isinstance(child, nodes.literal):
                parts.append(f"`{child.astext()}`")
            elif isinstance(child, nodes.strong):
                parts.append(f"**{child.astext()}**")
            elif isinstance(child, nodes.emphasis):
                parts.append(f"*{child.astext()}*")
            elif isinstance(child, (nodes.system_message, nodes.target)):
                continue
            elif isinstance(child, nodes.Element):
                parts.append(self.inline(child))
            else:
                parts.append(child.astext())
        return "".join(parts).replace("\n", " ").strip() if not isinstance(node, nodes.line_block) else "".join(parts)
