"""Prefilling the composer's unit vectors: after it, answering encodes no passage text at all."""

from __future__ import annotations

import fcntl
import shutil
from pathlib import Path
from typing import Any

import pytest

from knowledge.extractive import extractive_answer
from knowledge.ingest import ingest_folder
from knowledge.retrieval import KnowledgeBase
from knowledge.settings import KnowledgeSettings
from knowledge.unit_cache import prefill_once, prefill_unit_vectors, unit_texts
from relais.settings import Settings
from tests.knowledge.conftest import QUESTIONS, write_kb
from tests.knowledge.indexed import indexed_kb

ASKED = [q for q, _ in QUESTIONS]


class Counter:
    """Counts the texts each encoder is asked to encode as documents (not the questions)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *embedders: Any) -> None:
        self.texts: dict[str, int] = {}
        for embedder in embedders:
            original = embedder.embed_documents

            def counted(texts: Any, *args: Any, _name: str = embedder.name, _original: Any = original,
                        **kwargs: Any) -> Any:
                self.texts[_name] = self.texts.get(_name, 0) + len(texts)
                return _original(texts, *args, **kwargs)

            monkeypatch.setattr(embedder, "embed_documents", counted, raising=False)


def answer_all(kb: KnowledgeBase, cache_dir: Path) -> None:
    for question in ASKED:
        hits = kb.search(question) or kb.search(question, min_score=0.0, top_k=2)
        extractive_answer(question, hits, kb.embedder, cache_dir=cache_dir, kb=kb)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    """The EN/FR test base ingested with the ingest-time prefill off (MiniLM + the twin)."""
    root = tmp_path_factory.mktemp("unit-cache")
    return indexed_kb(write_kb(root / "kb"), root / "data", "en,fr", relais_embedding_model="minilm",
                      relais_prefill_budget_s=0)


def test_after_the_prefill_answers_encode_no_passage(kb: KnowledgeBase, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    assert kb.cross is not None and "fr" in kb.document_languages()
    cache = kb.settings.data_dir / "embeddings"
    cold = tmp_path / "cold"
    shutil.copytree(cache, cold)  # the cache as ingest left it: chunk vectors only
    counter = Counter(monkeypatch, kb.embedder, kb.cross.embedder)
    answer_all(kb, cold)
    assert counter.texts.get("minilm", 0) > 0  # without the prefill the first answers encode their units
    assert counter.texts.get("use-multilingual", 0) > 0  # ...and French questions with the twin too

    for embedder in (kb.embedder, kb.cross.embedder):
        monkeypatch.delattr(embedder, "embed_documents")  # the class's own method again
    done = prefill_unit_vectors(kb, cache)
    assert done.encoded > 0 and not done.stopped
    counter = Counter(monkeypatch, kb.embedder, kb.cross.embedder)
    answer_all(kb, cache)
    assert counter.texts == {}


def test_the_prefill_is_idempotent(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = kb.settings.data_dir / "embeddings"
    prefill_unit_vectors(kb, cache)
    counter = Counter(monkeypatch, kb.embedder, kb.cross.embedder)
    again = prefill_unit_vectors(kb, cache)
    assert again.encoded == 0 and again.texts >= len(unit_texts(kb))
    assert counter.texts == {}


def test_a_time_budget_stops_between_blocks(kb: KnowledgeBase, tmp_path: Path) -> None:
    # an empty cache: everything is missing, and no time to encode any of it
    cut = prefill_unit_vectors(kb, tmp_path / "empty", budget_s=0.0)
    assert cut.stopped and cut.encoded == 0


def test_each_block_waits_for_the_hook_first(kb: KnowledgeBase, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # the app's hook blocks while turns run (`chatbot.activity`): no text is encoded before it returns
    counter = Counter(monkeypatch, kb.embedder, kb.cross.embedder)
    seen: list[int] = []
    done = prefill_unit_vectors(kb, tmp_path / "empty", block=8,
                                before_block=lambda: seen.append(sum(counter.texts.values())))
    assert done.encoded > 8 and not done.stopped
    assert len(seen) == sum(-(-n // 8) for n in _missing_per_encoder(kb))  # once per block
    assert seen == sorted(seen) and seen[0] == 0  # the first block started after the first call
    assert sum(counter.texts.values()) == done.encoded


def _missing_per_encoder(kb: KnowledgeBase) -> list[int]:
    """Texts per encoder the prefill plans for an empty cache (the main encoder, then the twin's)."""
    from knowledge.unit_cache import _plan

    return [len(texts) for _, texts in _plan(kb)]


def test_ingest_leaves_the_prefill_to_the_app_by_default(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RELAIS_PREFILL_BUDGET_S", raising=False)  # the suite turns it off (tests/conftest.py)
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "plans.md").write_text("# Plans\n\nThe base plan costs $10/month. It includes the exercise library.\n\n"
                                     "## Premium\nPremium costs $25/month; it adds meal plans.\n", encoding="utf-8")
    config = KnowledgeSettings(relais_kb_dir=folder, relais_query_languages="en", relais_embedding_model="minilm").on(Settings(relais_data_dir=tmp_path / "data"))
    base = KnowledgeBase(config)
    report = ingest_folder(folder, config, show_progress=False, kb=base)
    assert not any(name.startswith("Composer sentences") for name in report.phases)
    cache = config.data_dir / "embeddings"
    with open(cache / ".prefill.lock", "w") as held:  # another instance is prefilling: this one leaves it
        fcntl.flock(held, fcntl.LOCK_EX)
        assert prefill_once(base, cache) is None
    done = prefill_once(base, cache)  # what the app runs once ready
    assert done is not None and done.encoded > 0
    counter = Counter(monkeypatch, base.embedder)
    for question in ("How much is Premium?", "What does the base plan include?"):
        extractive_answer(question, base.search(question, min_score=0.0, top_k=2), base.embedder,
                          cache_dir=cache, kb=base)
    assert counter.texts == {}
