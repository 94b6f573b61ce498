"""Reading and writing knowledge-base articles (text files under one folder)."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path

TEXT_SUFFIXES = (".md", ".markdown", ".txt")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_article(path: Path) -> str | None:
    """UTF-8 text of an article, or None when it cannot be read as text."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def kb_files(kb_dir: Path) -> list[Path]:
    """Text articles of the knowledge base, sorted, hidden folders skipped."""
    return sorted(
        p for p in kb_dir.rglob("*")
        if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(kb_dir).parts)
    )


def _mode_for(path: Path) -> int:
    """The permission bits the written file must have: the article's own, else the umask's default.

    `mkstemp` creates its file 0600; replacing an article with it would make a 0644 article
    unreadable to the other users and services of the knowledge base."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` in one step, so a crash never leaves half an article; its mode is kept."""
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
