"""Two versions of one code example in a section: the later one is the one to quote.

Docs show an example, then rewrite it: a naive version and the correct one, a first draft and
the finished program, the code before a change and after it. Both read alike to an encoder, and
the first often wins by its position — the one the page goes on to explain is wrong or partial.
A later block of the same section that holds (nearly) every name the earlier one holds, and
more, is its new version: it takes the earlier one's place and score. Names are compared with
string literals left out, so two examples that only share their sample data are not versions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_STRING = re.compile(r"(?s)\"\"\".*?\"\"\"|'''.*?'''|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'")
_NAME = re.compile(r"[A-Za-z_][\w]*")
CONTAINED = 0.85  # share of the earlier block's names the later one must hold
SIMILAR = 0.6  # and the two blocks' names must mostly be the same (Jaccard)


def code_names(block: str) -> frozenset[str]:
    """The names a fenced block uses, its strings and its fence line left out."""
    lines = block.strip().splitlines()
    if lines and lines[0].lstrip().startswith(("```", "~~~")):
        lines = lines[1:]
    if lines and lines[-1].strip() in ("```", "~~~"):
        lines = lines[:-1]
    return frozenset(_NAME.findall(_STRING.sub(" ", "\n".join(lines))))


def rewrites(earlier: str, later: str) -> bool:
    """Whether code block `later` is a new version of `earlier` (it keeps its names and adds some)."""
    a, b = code_names(earlier), code_names(later)
    if len(a) < 3 or not b - a:
        return False
    return len(a & b) / len(a) >= CONTAINED and len(a & b) / len(a | b) >= SIMILAR


def superseded(blocks: Sequence[tuple[str, str, tuple[int, int]]]) -> dict[int, int]:
    """{index of an earlier block: index of its latest version} for `blocks` given as
    (section key, code text, position in document order)."""
    out: dict[int, int] = {}
    order = sorted(range(len(blocks)), key=lambda i: blocks[i][2])
    for n, i in enumerate(order):
        for j in order[n + 1:]:
            if blocks[i][0] == blocks[j][0] and rewrites(blocks[i][1], blocks[j][1]):
                out[i] = j  # a later match overrides: the last version wins
    return out
