"""A fingerprint of the code that turns a file into chunks (loaders, markup cleaning, the chunker,
the sentence splitter, and whatever of the project's own code they import).

Why: ingest skips a file whose content hash is unchanged. After an upgrade that reads files
differently (a loader that keeps what it used to drop, markup cleaned that used to leak), an
index built by the old code would keep its old chunks for good. The fingerprint is part of the
index manifest, so new reading code re-indexes every file; chunks whose text did not change get
their vectors back from the embedding cache (keyed by the text's hash), so only what changed is
encoded. Derived from the source itself, not a version number someone must remember to bump.
"""

from __future__ import annotations

import ast
import hashlib
from functools import lru_cache
from pathlib import Path

READING_ENTRY = "knowledge.chunking"  # chunk_document: it imports the loaders, which import the rest
OWN_PACKAGES = ("knowledge", "relais")  # followed through imports; third-party code is pinned by the lock
SOURCE_ROOT = Path(__file__).resolve().parent.parent


def module_file(name: str, root: Path = SOURCE_ROOT) -> Path | None:
    """The source file of one of the project's own modules, or None (a name imported from it)."""
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_names(source: str) -> set[str]:
    """Every absolute import in a module, those inside functions (lazy loaders) included; for
    `from a.b import c` both `a.b` and `a.b.c` (c may be a module)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def reading_modules(entry: str = READING_ENTRY, root: Path = SOURCE_ROOT) -> dict[str, Path]:
    """The project's modules reachable by imports from `entry`, by name."""
    found: dict[str, Path] = {}
    pending = [entry]
    while pending:
        name = pending.pop()
        if name in found or name.split(".")[0] not in OWN_PACKAGES:
            continue
        path = module_file(name, root)
        if path is None:
            continue
        found[name] = path
        pending.extend(imported_names(path.read_text(encoding="utf-8")))
    return found


def fingerprint(modules: dict[str, Path]) -> str:
    """A short hash of the modules' names and sources (stable across machines and install paths)."""
    digest = hashlib.sha256()
    for name, path in sorted(modules.items()):
        digest.update(name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@lru_cache(maxsize=1)
def reader_fingerprint() -> str:
    """The fingerprint of this installation's reading code (computed once per process)."""
    return fingerprint(reading_modules())
