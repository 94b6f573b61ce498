"""Publish: write the approved articles, then re-ingest exactly those files.

Runs only after the one human approval. Idempotent (LangGraph may re-run a node on resume):
an article already holding the approved text counts as written; an article changed on disk
since the run read it is left alone and reported as a conflict.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from kb_update.articles import read_article, sha256_text, write_atomically
from kb_update.types import Unit, UnitState
from knowledge.settings import KnowledgeSettings

log = logging.getLogger(__name__)

Reingest = Callable[[Path, list[Path]], dict[str, Any]]


def publish_units(kb_dir: Path, units: dict[str, Unit], status: dict[str, UnitState],
                  reingest: Reingest | None) -> dict[str, Any]:
    """Write every passed, changed unit; re-ingest the written files; report what happened."""
    written: list[str] = []
    unchanged: list[str] = []
    conflicts: list[str] = []
    not_published: list[str] = []
    for uid, unit in units.items():
        record = status[uid]
        output = record["output"]
        if record["status"] != "done" or output is None:
            not_published.append(unit["path"])
            continue
        if output == unit["original"]:
            unchanged.append(unit["path"])
            continue
        path = kb_dir / unit["path"]
        current = read_article(path)
        if current == output:
            written.append(unit["path"])
            continue
        if current is None or sha256_text(current) != unit["sha256"]:
            conflicts.append(unit["path"])
            log.warning("%s changed on disk since the run read it; not overwritten", unit["path"])
            continue
        write_atomically(path, output)
        written.append(unit["path"])
    report: dict[str, Any] = {"written": written, "unchanged": unchanged, "conflicts": conflicts,
                              "not_published": not_published, "reingest": None}
    report["reingest"] = _reingest(kb_dir, written, reingest)
    return report


Progress = Callable[[dict[str, Any]], None]


def publish_texts(kb_dir: Path, writes: dict[str, dict[str, str]], left: list[str],
                  reingest: Reingest | None, journal: Path | None = None,
                  progress: Progress | None = None) -> dict[str, Any]:
    """Write the approved final texts (path → {text, sha256 of the text read}); re-ingest them.

    Same safety as `publish_units`: a file changed on disk since the run read it is a conflict,
    left alone. Each publish appends one line to `journal` (who reads it: operators and tests
    proving that one approval wrote once).
    """
    written: list[str] = []
    unchanged: list[str] = []
    conflicts: list[str] = []
    for rel, entry in sorted(writes.items()):
        path = kb_dir / rel
        current = read_article(path)
        if current == entry["text"]:
            (written if sha256_text(entry["text"]) != entry["sha256"] else unchanged).append(rel)
            continue
        if current is None or sha256_text(current) != entry["sha256"]:
            conflicts.append(rel)
            log.warning("%s changed on disk since the run read it; not overwritten", rel)
            continue
        write_atomically(path, entry["text"])
        written.append(rel)
        if progress is not None:
            progress({"event": "publish-written", "path": rel, "done": len(written), "total": len(writes)})
    report: dict[str, Any] = {"written": written, "unchanged": unchanged, "conflicts": conflicts,
                              "not_published": sorted(left), "reingest": None}
    if journal is not None:
        journal.parent.mkdir(parents=True, exist_ok=True)
        with journal.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"kb_dir": str(kb_dir), "written": written, "conflicts": conflicts}) + "\n")
    if progress is not None and written and reingest is not None:
        progress({"event": "reindex-start", "total": len(written)})
    report["reingest"] = _reingest(kb_dir, written, reingest)
    if progress is not None and written and reingest is not None:
        failed = isinstance(report["reingest"], dict) and bool(report["reingest"].get("error"))
        progress({"event": "reindex-done", "failed": failed})
    return report


def knowledge_reingest(settings: KnowledgeSettings | None = None) -> Reingest:
    """The default hook: incremental re-ingest of exactly the written files (knowledge package)."""

    def run(kb_dir: Path, paths: list[Path]) -> dict[str, Any]:
        # lazy: knowledge.ingest (+1.8 s, the encoder stack) loads only when a publish re-indexes
        from knowledge.ingest import ingest_folder

        result = ingest_folder(kb_dir, settings, paths=paths, show_progress=False)
        return _as_dict(result, paths)

    return run


def _as_dict(result: Any, paths: list[Path]) -> dict[str, Any]:
    if hasattr(result, "model_dump"):
        data = result.model_dump()
    elif hasattr(result, "__dataclass_fields__"):
        data = asdict(result)
    elif isinstance(result, dict):
        data = dict(result)
    else:
        data = {"summary": str(result)}
    data = json.loads(json.dumps(data, default=str))  # checkpoint-safe: plain JSON values only
    summary = getattr(result, "summary", None)
    if callable(summary):
        data["summary"] = str(summary())
    data["paths"] = [str(p) for p in paths]
    return data


def _reingest(kb_dir: Path, written: list[str], reingest: Reingest | None) -> Any:
    """Re-index exactly the written files; on failure the files stay written and the report
    says clearly that the index is stale."""
    if not written or reingest is None:
        return None
    try:
        return reingest(kb_dir, [kb_dir / rel for rel in written])
    except Exception as exc:  # noqa: BLE001 - files are written; say clearly that the index is stale
        log.exception("re-ingest failed")
        return {"error": f"{type(exc).__name__}: {exc}", "hint": "run `relais ingest` to refresh the index"}
