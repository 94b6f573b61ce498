"""End to end on a temporary copy of the demo knowledge base (data/knowledge), offline."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kb_update.graph import Components, EngineConfig
from kb_update.markdown import paragraph_texts
from kb_update.price_job import PriceChange, PriceChangeJob
from kb_update.publish import knowledge_reingest
from knowledge.settings import knowledge_settings
from relais.settings import clear_settings_caches
from tests.conftest import REPO_ROOT
from tests.demo_index import demo_data_dir
from tests.kb_update.conftest import Decisions, run_job

DEMO_KB = REPO_ROOT / "data" / "knowledge"


@pytest.mark.slow
@pytest.mark.skipif(not DEMO_KB.is_dir(), reason="the demo knowledge base is not in this checkout")
def test_price_change_on_the_demo_kb(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from knowledge.extractive import extractive_answer
    from knowledge.retrieval import get_knowledge_base

    kb = Path(shutil.copytree(DEMO_KB, tmp_path / "kb"))
    # the copy's content is the demo KB's: its index is a copy of the suite's one ingest of it
    monkeypatch.setenv("RELAIS_DATA_DIR", str(demo_data_dir(tmp_path_factory, "demo-kb-update")))
    clear_settings_caches()
    settings = knowledge_settings()
    job = PriceChangeJob(PriceChange.parse("$10/month", "$12/month"))
    parts = Components.offline(job, reingest=knowledge_reingest(settings))
    decisions = Decisions()
    finished, run = run_job(parts, kb, decisions, config=EngineConfig())

    stats = finished.stats
    assert finished.outcome == "published"
    assert stats["units"] >= 3 and stats["corrected"] >= 1 and stats["lessons_approved"] >= 1
    assert decisions.kinds().count("publish") == 1
    state = run.values()
    for rel in finished.published["written"]:
        before, after = paragraph_texts((DEMO_KB / rel).read_text()), paragraph_texts((kb / rel).read_text())
        changed = {i for i, (a, b) in enumerate(zip(before, after)) if a != b}
        assert len(before) == len(after) and changed <= set(state["status"][rel]["scope"])
    for unit in state["review"]["units"]:
        assert unit["status"] == "done" or unit["escalation"]  # every escalation says why
    question = "How much does the Base plan cost per month?"
    answer = extractive_answer(question, get_knowledge_base(settings).search(question, 5)).text
    assert "$12" in answer, answer
    print(f"\ndemo KB: {stats}")
