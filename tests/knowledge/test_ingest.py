from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from knowledge.errors import KnowledgeBaseMissing, StoreUnavailable
from knowledge.ingest import ingest_folder
from knowledge.lexical import LexicalIndex
from knowledge.retrieval import KnowledgeBase
from knowledge.settings import KnowledgeSettings
from relais.embeddings import get_embedder
from relais.settings import Settings
from tests.knowledge.conftest import ARTICLES


class CountingEmbedder:
    """The real MiniLM, counting how many texts it had to encode."""

    def __init__(self) -> None:
        self._inner = get_embedder("minilm")
        self.name, self.dim = self._inner.name, self._inner.dim
        self.encoded: list[str] = []

    def embed_documents(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        self.encoded += list(texts)
        return self._inner.embed_documents(texts, batch_size)

    def embed_query(self, text: str) -> np.ndarray:
        return self._inner.embed_query(text)


@pytest.fixture
def settings(tmp_path: Path) -> KnowledgeSettings:
    return KnowledgeSettings(relais_kb_dir=tmp_path / "kb").on(Settings(relais_data_dir=tmp_path / "data"))


def _consistent(kb: KnowledgeBase, settings: KnowledgeSettings) -> set[str]:
    """Dense ids == lexical ids == manifest ids; returns the indexed sources."""
    dense_ids = set(kb.store.ids())
    lexical = LexicalIndex.load(kb.lexical_dir)
    assert lexical is not None
    manifest = json.loads((settings.data_dir / "manifests" / f"{kb.store.name}.json").read_text())
    manifest_ids = {cid for entry in manifest["files"].values() for cid in entry["chunk_ids"]}
    assert dense_ids == set(lexical.ids) == manifest_ids
    return {cid.rsplit("#", 1)[0] for cid in dense_ids}


def test_add_change_delete_and_failed_file(kb_folder: Path, settings: KnowledgeSettings) -> None:
    embedder = CountingEmbedder()
    kb = KnowledgeBase(settings, embedder=embedder)

    first = ingest_folder(kb_folder, settings, show_progress=False, kb=kb)
    assert len(first.indexed) == len(ARTICLES) + 1 and not first.failed and first.chunks > 0
    assert _consistent(kb, settings) == set(first.indexed)
    assert "Indexed 8 file(s)" in first.summary()
    assert list(first.phases)[:3] == ["Reading and chunking files", "Embedding chunks (minilm)",
                                      "Building the BM25 index"]  # each phase timed, in order
    assert "time per phase: Reading and chunking files" in first.summary()

    encoded_before = len(embedder.encoded)
    again = ingest_folder(kb_folder, settings, show_progress=False, kb=kb)
    assert again.indexed == [] and len(again.skipped) == len(first.indexed)
    assert len(embedder.encoded) == encoded_before  # nothing re-embedded

    # change one file, delete one, add a broken one and a new good one
    (kb_folder / "plans-and-pricing.md").write_text(
        "# Plans and pricing\n\n## Base plan\nThe base plan now costs $12/month.\n", encoding="utf-8")
    (kb_folder / "cancellation.md").unlink()
    (kb_folder / "broken.md").write_bytes(b"\x00\x00binary")
    (kb_folder / "classes.md").write_text("# Group classes\n\nBook yoga classes in the app.\n", encoding="utf-8")
    report = ingest_folder(kb_folder, settings, show_progress=False, kb=kb)
    assert sorted(report.indexed) == ["classes.md", "plans-and-pricing.md"]
    assert report.removed == ["cancellation.md"]
    assert report.failed == [("broken.md", "binary content (NUL bytes), not a text file")]
    assert "broken.md: binary" in report.summary()
    sources = _consistent(kb, settings)
    assert "cancellation.md" not in sources and "broken.md" not in sources and "classes.md" in sources

    hits = kb.search("How much does the base plan cost?", top_k=3)
    assert hits[0].source == "plans-and-pricing.md" and "$12/month" in hits[0].text
    assert not any("$10/month" in h.text for h in kb.search("base plan price", top_k=10, mode="bm25"))
    for mode in ("bm25", "dense", "hybrid"):
        assert all(h.source != "cancellation.md" for h in kb.search("cancel subscription", 10, mode))


def test_a_file_that_stops_parsing_leaves_nothing_stale(kb_folder: Path, settings: KnowledgeSettings) -> None:
    kb = KnowledgeBase(settings)
    ingest_folder(kb_folder, settings, show_progress=False, kb=kb)
    (kb_folder / "remboursements.md").write_bytes("Remboursé".encode("latin-1"))
    report = ingest_folder(kb_folder, settings, show_progress=False, kb=kb)
    assert [path for path, _ in report.failed] == ["remboursements.md"]
    assert "remboursements.md" not in _consistent(kb, settings)


def test_paths_reindex_only_those_files(kb_folder: Path, settings: KnowledgeSettings) -> None:
    kb = KnowledgeBase(settings)
    ingest_folder(kb_folder, settings, show_progress=False, kb=kb)
    (kb_folder / "freeze.md").write_text("# Freezing\n\nFreeze for up to six months.\n", encoding="utf-8")
    (kb_folder / "wearables.txt").write_text("Wearables\n\nPolar is supported too.\n", encoding="utf-8")
    (kb_folder / "gym-hours.html").unlink()
    report = ingest_folder(kb_folder, settings, paths=[kb_folder / "freeze.md", Path("gym-hours.html")],
                           show_progress=False, kb=kb)
    assert report.indexed == ["freeze.md"] and report.removed == ["gym-hours.html"]
    sources = _consistent(kb, settings)
    assert "gym-hours.html" not in sources
    wearables = [h for h in kb.search("Which watches are supported?", top_k=10) if h.source == "wearables.txt"]
    assert wearables and "Polar" not in wearables[0].text  # not in `paths`: left as it was


def test_missing_or_empty_folder_says_how_to_ingest(tmp_path: Path, settings: KnowledgeSettings) -> None:
    with pytest.raises(KnowledgeBaseMissing, match="relais ingest"):
        ingest_folder(tmp_path / "nope", settings, show_progress=False)
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "diagram.png").write_bytes(b"\x89PNG")
    (tmp_path / "empty" / "slides.key").write_bytes(b"PK")
    (tmp_path / "empty" / "photo.png").write_bytes(b"\x89PNG")
    with pytest.raises(KnowledgeBaseMissing, match=r"no supported file.*2 \.png, 1 \.key"):
        ingest_folder(tmp_path / "empty", settings, show_progress=False)


def test_unwritable_chroma_dir_is_a_clear_error(kb_folder: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "chroma").write_text("a file where the Chroma folder should be")
    settings = KnowledgeSettings().on(Settings(relais_data_dir=data))
    with pytest.raises(StoreUnavailable, match="not writable.*RELAIS_DATA_DIR"):
        KnowledgeBase(settings)


def test_changing_chunking_rebuilds_the_index(kb_folder: Path, settings: KnowledgeSettings) -> None:
    kb = KnowledgeBase(settings)
    ingest_folder(kb_folder, settings, show_progress=False, kb=kb)
    small = settings.model_copy(update={"chunk_size": 120, "chunk_overlap": 20})
    report = ingest_folder(kb_folder, small, show_progress=False, kb=kb)
    assert len(report.indexed) == len(ARTICLES) + 1  # nothing skipped: old chunks are incompatible
    assert _consistent(kb, small)


def test_new_reading_code_reindexes_every_file_from_the_vector_cache(
        kb_folder: Path, settings: KnowledgeSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    """An upgrade that reads files differently (another reader fingerprint) re-indexes unchanged
    files instead of keeping their old chunks; chunks whose text did not change are not encoded again."""
    embedder = CountingEmbedder()
    kb = KnowledgeBase(settings, embedder=embedder)
    ingest_folder(kb_folder, settings, show_progress=False, kb=kb)
    assert not ingest_folder(kb_folder, settings, show_progress=False, kb=kb).indexed  # same code: skipped
    encoded = len(embedder.encoded)

    monkeypatch.setattr("knowledge.ingest.reader_fingerprint", lambda: "another-reader")
    report = ingest_folder(kb_folder, settings, show_progress=False, kb=kb)
    assert len(report.indexed) == len(ARTICLES) + 1
    assert _consistent(kb, settings) == set(report.indexed)
    assert len(embedder.encoded) == encoded, "unchanged chunk texts come back from the vector cache"
