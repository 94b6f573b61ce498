"""Incremental ingest: folder → loaders → chunks → batched embeddings → Chroma + BM25.

Unchanged files (same SHA-256) are skipped, changed files have their chunks replaced, deleted
files are removed. A file that fails to load is reported with its reason and leaves nothing of
itself in the index. The lexical index is rebuilt from the vector store at the end, so both
sides always describe the same chunks.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from knowledge.chunking import CHUNKER_VERSION, Chunk, chunk_document
from knowledge.embedding_cache import embed_texts
from knowledge.encoder_choice import choose_for_languages
from knowledge.errors import KnowledgeBaseMissing, LoaderError
from knowledge.loaders import SUPPORTED_SUFFIXES, is_supported, load_document
from knowledge.manifest import FileEntry, Manifest
from knowledge.progress import Phases
from knowledge.reader_code import reader_fingerprint
from knowledge.retrieval import KnowledgeBase, get_knowledge_base
from knowledge.settings import KnowledgeSettings, knowledge_settings
from knowledge.store import ChromaStore
from knowledge.unit_cache import prefill_unit_vectors
from relais.embeddings import Embedder, get_embedder

HOW_TO_INGEST = (
    "Put .md, .mdx, .rst, .txt, .pdf, .html or .docx files in it (or point RELAIS_KB_DIR at your "
    "folder), then run `relais ingest [DIR]`; map other suffixes with RELAIS_KB_EXTENSIONS."
)


@dataclass
class IngestReport:
    """What one ingest run did; paths are relative to the knowledge-base folder."""

    indexed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    not_indexed: dict[str, int] = field(default_factory=dict)  # unsupported files by suffix
    chunks: int = 0  # chunks written in this run
    total_chunks: int = 0  # chunks in the index afterwards
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)  # seconds per phase, in the order they ran

    def summary(self) -> str:
        line = (
            f"Indexed {len(self.indexed)} file(s) ({self.chunks} chunks), skipped "
            f"{len(self.skipped)} unchanged, removed {len(self.removed)}, failed {len(self.failed)} "
            f"— {self.total_chunks} chunks in the index, {self.seconds:.1f} s."
        )
        lines = [line] + [f"  failed: {path}: {reason}" for path, reason in self.failed]
        if self.phases:
            lines.append("  time per phase: " + ", ".join(f"{name} {s:.1f} s" for name, s in self.phases.items()))
        if self.not_indexed:
            lines.append("  not indexed (unsupported type): " + describe_kinds(self.not_indexed)
                         + " — map a text format with RELAIS_KB_EXTENSIONS (e.g. .mdoc=.md)")
        return "\n".join(lines)


def describe_kinds(counts: dict[str, int]) -> str:
    """'124 .mdx, 12 .png' — most frequent first."""
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _visible_files(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )


def discover(folder: Path, extra: dict[str, str] | None = None) -> list[Path]:
    """Supported files under `folder`, hidden files and folders excluded, sorted."""
    return [p for p in _visible_files(folder) if is_supported(p, extra)]


def unsupported_kinds(folder: Path, extra: dict[str, str] | None = None) -> dict[str, int]:
    """How many visible files of each unsupported suffix `folder` holds ('(none)' for no suffix)."""
    counts: dict[str, int] = {}
    for path in _visible_files(folder):
        if not is_supported(path, extra):
            kind = path.suffix.lower() or "(no extension)"
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def chunk_metadata(chunk: Chunk, sha256: str) -> dict[str, object]:
    return {"source": chunk.source, "title": chunk.title, "section": chunk.section,
            "chunk_index": chunk.chunk_index, "language": chunk.language, "sha256": sha256}


def write_chunks(store: ChromaStore, embedder: Embedder, chunks: Sequence[Chunk],
                 metadatas: Sequence[dict[str, object]], cache_dir: Path | None,
                 show_progress: bool = False, progress: Any = None) -> None:
    """Embed (through the cache) and upsert `chunks`; shared by ingest and the BEIR eval."""
    if not chunks:
        return
    vectors = embed_texts(embedder, [c.index_text for c in chunks], cache_dir,
                          show_progress=show_progress, description="Embedding chunks", progress=progress)
    store.upsert([c.id for c in chunks], vectors, [c.text for c in chunks], list(metadatas))


def _relative(path: Path, folder: Path) -> str | None:
    path = path if path.is_absolute() else folder / path
    try:
        return path.resolve().relative_to(folder).as_posix()
    except ValueError:
        return None


def ingest_folder(folder: Path | None = None, settings: KnowledgeSettings | None = None, *,
                  paths: list[Path] | None = None, show_progress: bool = True,
                  kb: KnowledgeBase | None = None) -> IngestReport:
    """Bring the index in line with `folder` (default `RELAIS_KB_DIR`), or only with `paths`.

    Each phase shows a progress bar when `show_progress`; `IngestReport.phases` has their seconds."""
    started = time.perf_counter()
    phases = Phases(show_progress)
    settings = settings or knowledge_settings()
    folder = Path(folder or settings.relais_kb_dir).expanduser().resolve()
    present, unsupported = _supported_files(folder, settings, whole_folder=paths is None)
    if kb is None:
        with phases.phase("Loading the encoder and the vector store", total=1, unit="step") as bar:
            kb = get_knowledge_base(settings)
            bar.update(1)
    manifest, paths = _open_manifest(kb, settings, paths)
    report = IngestReport(not_indexed=unsupported)
    candidates = _candidates(paths, present, manifest, folder, report)
    with phases.phase("Reading and chunking files", total=len(candidates), unit="file") as bar:
        to_write, stale = _read_candidates(candidates, present, folder, manifest, settings, report, bar)
    _choose_encoder_once(kb, manifest, to_write)
    store, embedder = kb.store, kb.embedder
    all_chunks = [c for _, _, chunks in to_write for c in chunks]
    metadatas = [chunk_metadata(c, sha) for _, sha, chunks in to_write for c in chunks]
    if all_chunks:
        with phases.phase(f"Embedding chunks ({embedder.name})", unit="chunk") as bar:
            write_chunks(store, embedder, all_chunks, metadatas, settings.data_dir / "embeddings", progress=bar)
    stale += _record_written(manifest, to_write, report)
    report.chunks = len(all_chunks)
    if paths is None:  # drop orphans left by an interrupted earlier run
        known = manifest.chunk_ids()
        stale += [cid for cid in store.ids() if cid not in known]
    stale = sorted(set(stale))
    store.delete(stale)
    manifest.save()
    _derived_indexes(kb, settings, all_chunks, metadatas, bool(report.indexed or stale), phases)
    report.total_chunks = kb.store.count()
    report.phases = dict(phases.seconds)
    report.seconds = time.perf_counter() - started
    return report


def _supported_files(folder: Path, settings: KnowledgeSettings, *, whole_folder: bool) -> tuple[dict[str, Path], list[str]]:
    """The folder's supported files by relative path, and the kinds it holds that cannot be indexed;
    a missing folder, or one with nothing to index when the whole folder is asked for, is an error
    that says how to ingest."""
    if not folder.is_dir():
        raise KnowledgeBaseMissing(f"Knowledge base folder {folder} not found. {HOW_TO_INGEST}")
    extra = settings.kb_extensions
    present = {p.relative_to(folder).as_posix(): p for p in discover(folder, extra)}
    unsupported = unsupported_kinds(folder, extra)
    if not present and whole_folder:
        found = f" It holds {describe_kinds(unsupported)}, none of a supported type." if unsupported else ""
        raise KnowledgeBaseMissing(
            f"Knowledge base folder {folder} has no supported file ({', '.join(SUPPORTED_SUFFIXES)}).{found} "
            f"{HOW_TO_INGEST}"
        )
    return present, unsupported


def _open_manifest(kb: KnowledgeBase, settings: KnowledgeSettings,
                   paths: list[Path] | None) -> tuple[Manifest, list[Path] | None]:
    """The store's manifest, started over (store emptied, every file to index again: `paths` becomes
    None) when the encoder changed, since vectors would not be comparable, or the chunking or the
    code that reads files did (`reader_fingerprint`: unchanged chunks reuse their cached vectors)."""
    store, embedder = kb.store, kb.embedder
    manifest = Manifest.load(settings.data_dir / "manifests" / f"{store.name}.json")
    chunking = [settings.chunk_size, settings.chunk_overlap, CHUNKER_VERSION, reader_fingerprint()]
    if (manifest.embedder and manifest.embedder != embedder.name) or manifest.chunking != chunking \
            or store.embedder not in ((embedder.name, embedder.dim), (None, None)):
        store.reset()  # another model or chunking: vectors are not comparable, start over
        manifest = Manifest(manifest.path)
        paths = None  # ...and every file must be indexed again, not only `paths`
    manifest.embedder, manifest.chunking = embedder.name, chunking
    return manifest, paths


def _candidates(paths: list[Path] | None, present: dict[str, Path], manifest: Manifest, folder: Path,
                report: IngestReport) -> list[str]:
    """The relative paths to look at: every present or known file, or only `paths` (those outside
    the folder are reported as failed)."""
    if paths is None:
        return sorted(set(present) | set(manifest.files))
    candidates = []
    for path in paths:
        rel = _relative(Path(path), folder)
        if rel is None:
            report.failed.append((str(path), f"outside the knowledge base folder {folder}"))
        else:
            candidates.append(rel)
    return candidates


def _choose_encoder_once(kb: KnowledgeBase, manifest: Manifest, to_write: list[tuple[str, str, list[Chunk]]]) -> None:
    """On the first ingest with `RELAIS_EMBEDDING_MODEL=auto`, the encoder that suits these documents'
    languages; later ingests keep the one the index was built with."""
    if not (kb.embedder_is_auto and kb.store.count() == 0):
        return
    choice = choose_for_languages(c.language for _, _, chunks in to_write for c in chunks)
    if choice != kb.embedder.name:
        kb.use_embedder(get_embedder(choice))
        store, embedder = kb.store, kb.embedder
        if store.embedder not in ((embedder.name, embedder.dim), (None, None)):
            store.reset()
    manifest.embedder = kb.embedder.name


def _record_written(manifest: Manifest, to_write: list[tuple[str, str, list[Chunk]]],
                    report: IngestReport) -> list[str]:
    """Each written file's new chunk ids in the manifest and the report; returns the ids its
    previous version had that are gone now (to delete from the store)."""
    stale: list[str] = []
    for rel, sha, chunks in to_write:
        new_ids = [c.id for c in chunks]
        old = manifest.files.get(rel)
        if old is not None:
            stale += [cid for cid in old.chunk_ids if cid not in set(new_ids)]
        manifest.files[rel] = FileEntry(sha, new_ids)
        report.indexed.append(rel)
    return stale


def _read_candidates(candidates: Sequence[str], present: dict[str, Path], folder: Path, manifest: Manifest,
                     settings: KnowledgeSettings, report: IngestReport,
                     bar: Any) -> tuple[list[tuple[str, str, list[Chunk]]], list[str]]:
    """Hash, load and chunk each candidate file: (files to write with their chunks, stale chunk
    ids); skipped, removed and failed files go to `report`, removed ones out of `manifest`."""
    extra = settings.kb_extensions
    to_write: list[tuple[str, str, list[Chunk]]] = []
    stale: list[str] = []
    for rel in candidates:
        bar.update(1)
        entry = manifest.files.get(rel)
        path = present.get(rel) or (folder / rel)
        if rel not in present and not (path.is_file() and is_supported(path, extra)):
            if entry is not None:
                stale += entry.chunk_ids
                del manifest.files[rel]
                report.removed.append(rel)
            continue
        try:
            sha = file_sha256(path)
            if entry is not None and entry.sha256 == sha and entry.chunk_ids:
                report.skipped.append(rel)
                continue
            doc = load_document(path, settings.max_file_mb, extra)
            chunks = chunk_document(doc, rel, settings.chunk_size, settings.chunk_overlap)
            if not chunks:
                raise LoaderError(path, "empty (no text could be extracted)")
        except (LoaderError, OSError) as exc:
            reason = exc.reason if isinstance(exc, LoaderError) else f"cannot read ({exc})"
            report.failed.append((rel, reason))
            if entry is not None:  # its old chunks describe a file that no longer parses
                stale += entry.chunk_ids
                del manifest.files[rel]
            continue
        to_write.append((rel, sha, chunks))
    return to_write, stale


def _derived_indexes(kb: KnowledgeBase, settings: KnowledgeSettings, written: Sequence[Chunk],
                     metadatas: Sequence[dict[str, object]], changed: bool, phases: Phases) -> None:
    """What is built from the stored chunks: BM25, the multilingual twin, the composer's vectors."""
    with phases.phase("Building the BM25 index", total=1, unit="index") as bar:
        if changed:
            kb.refresh_lexical()
        else:
            kb.lexical()  # loads it, or rebuilds it when missing or stale
        bar.update(1)
    cache_dir = settings.data_dir / "embeddings"
    cross = kb.cross  # questions in a language the documents are not in: a multilingual twin
    if cross is not None:
        with phases.phase(f"Embedding chunks ({cross.embedder.name})", unit="chunk") as bar:
            cross.sync(kb.store, written, metadatas, cache_dir, progress=bar)
    if settings.relais_prefill_budget_s > 0:  # the first questions then find their sentences encoded
        prefill_unit_vectors(kb, cache_dir, budget_s=settings.relais_prefill_budget_s, phases=phases)
