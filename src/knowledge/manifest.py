"""The ingest manifest: which file (by content hash) produced which chunk ids.

It is what makes ingest incremental (unchanged hash → skip) and lets deleted files' chunks be
removed. Written atomically (temp file + rename) so a crash never leaves half a manifest.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VERSION = 1


@dataclass
class FileEntry:
    sha256: str
    chunk_ids: list[str]


@dataclass
class Manifest:
    path: Path
    embedder: str = ""
    chunking: list[int | str] = field(default_factory=list)  # sizes, chunker version, reader fingerprint
    files: dict[str, FileEntry] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Manifest:
        try:
            raw: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            if raw.get("version") != VERSION:
                return cls(path)
            files = {k: FileEntry(v["sha256"], list(v["chunk_ids"])) for k, v in raw["files"].items()}
            return cls(path, raw.get("embedder", ""), list(raw.get("chunking", [])), files)
        except (OSError, ValueError, KeyError, TypeError):
            return cls(path)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "version": VERSION, "embedder": self.embedder, "chunking": self.chunking,
            "files": {k: {"sha256": v.sha256, "chunk_ids": v.chunk_ids} for k, v in sorted(self.files.items())},
        }
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".manifest-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, indent=1)
        os.replace(tmp, self.path)

    def chunk_ids(self) -> set[str]:
        return {cid for entry in self.files.values() for cid in entry.chunk_ids}
