"""Publish after approval: files written, exactly those re-ingested, answers use the new price."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_update.markdown import paragraph_texts
from kb_update.price_job import PriceChangeJob
from kb_update.publish import knowledge_reingest
from kb_update.splitter import split
from knowledge.settings import knowledge_settings
from tests.kb_update.conftest import FIXTURE_KB, Decisions, snapshot

QUESTION = "How much does the Base plan cost per month?"


def _changed_paragraphs(before: str, after: str) -> set[int]:
    old, new = paragraph_texts(before), paragraph_texts(after)
    assert len(old) == len(new)
    return {i for i, (a, b) in enumerate(zip(old, new)) if a != b}


def _answer(settings: object, question: str) -> str:
    from knowledge.extractive import extractive_answer
    from knowledge.retrieval import get_knowledge_base

    return extractive_answer(question, get_knowledge_base(settings).search(question, 5)).text


@pytest.mark.slow
def test_approve_changes_only_price_paragraphs_and_the_reindexed_answer_says_12(
        offline_run, kb: Path, job: PriceChangeJob) -> None:
    from knowledge.ingest import ingest_folder

    settings = knowledge_settings()
    ingest_folder(kb, settings, show_progress=False)
    assert "$10" in _answer(settings, QUESTION)
    price_paragraphs = {}
    for unit in split(job, kb).units:
        price_paragraphs[unit["path"]] = {h["paragraph"] for h in unit["hits"]}
    before = snapshot(kb)

    finished, _run = offline_run(decide=Decisions(), reingest=knowledge_reingest(settings))

    written = finished.published["written"]
    assert sorted(written) == sorted(price_paragraphs)  # every unit passed and was written
    for rel in written:
        original = (FIXTURE_KB / rel).read_text()
        now = (kb / rel).read_text()
        assert _changed_paragraphs(original, now) <= price_paragraphs[rel]
        assert "$12" in now or "12 $" in now or "12 dollars" in now
    untouched = set(before) - set(written)
    assert {rel: h for rel, h in snapshot(kb).items() if rel in untouched} == {
        rel: h for rel, h in before.items() if rel in untouched}
    assert sorted(finished.published["reingest"]["indexed"]) == sorted(written)  # exactly those files
    answer = _answer(settings, QUESTION)
    assert "$12" in answer and "$10/month" not in answer and "$10 per month" not in answer


def test_publish_never_overwrites_an_article_edited_meanwhile(offline_run, kb: Path) -> None:
    target = kb / "getting-started.md"

    def decide(approval):  # someone edits the file while the run waits for approval
        if approval.kind == "publish":
            target.write_text(target.read_text() + "\nEdited by a colleague.\n")
        return True

    finished, _ = offline_run(decide=decide)
    assert finished.published["conflicts"] == ["getting-started.md"]
    assert "Edited by a colleague." in target.read_text() and "$10 per month" in target.read_text()
    assert "getting-started.md" not in finished.published["written"]


def test_a_failing_reingest_is_reported_and_files_stay_written(offline_run, kb: Path) -> None:
    def broken(kb_dir: Path, paths: list[Path]) -> dict:
        raise OSError("index locked")

    finished, _ = offline_run(reingest=broken)
    assert "index locked" in finished.published["reingest"]["error"]
    assert "relais ingest" in finished.published["reingest"]["hint"]
    assert "$12/month" in (kb / "billing/plans.md").read_text()


def test_publishing_keeps_each_article_s_file_mode_and_reports_progress(offline_run, kb: Path) -> None:
    import os
    import stat

    from kb_update.runner import PublishProgress

    modes = {}
    for path in kb.rglob("*.md"):
        os.chmod(path, 0o644 if len(modes) % 2 else 0o640)
        modes[path] = stat.S_IMODE(path.stat().st_mode)
    events: list = []
    finished, _ = offline_run(reingest=lambda kb_dir, paths: {"indexed": len(paths)}, events=events)
    written = finished.published["written"]
    assert written
    for rel in written:  # an atomic replace, with the article's own mode (mkstemp would give 0600)
        assert stat.S_IMODE((kb / rel).stat().st_mode) == modes[kb / rel]
    progress = [e for e in events if isinstance(e, PublishProgress)]
    assert [e.path for e in progress if e.stage == "written"] == written  # one event per article, as written
    assert [e.stage for e in progress][-2:] == ["reindex-start", "reindex-done"]
    assert not progress[-1].failed


def test_a_lesson_answered_once_is_not_asked_again_on_the_next_run(tmp_path: Path, job: PriceChangeJob) -> None:
    import shutil

    from kb_update.graph import Components
    from tests.kb_update.conftest import run_job

    memory = tmp_path / "lessons.json"
    asked: list[str] = []

    def decide(approval):
        asked.append(approval.kind)
        return approval.kind != "publish"  # approve lessons, do not publish (the base stays as it is)

    for n in (1, 2):
        kb = Path(shutil.copytree(FIXTURE_KB, tmp_path / f"kb{n}"))
        parts = Components.offline(job)
        parts.lesson_memory = memory
        _finished, run = run_job(parts, kb, decide)
        if n == 1:
            first, asked[:] = list(asked), []
    assert "lesson" in first and "lesson" not in asked  # the second run knew the answer
    lessons = run.values()["lessons"]
    assert lessons and all(lesson["status"] == "approved" and lesson["id"].startswith("M") for lesson in lessons)
