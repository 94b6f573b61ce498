from __future__ import annotations

from pathlib import Path

import pytest

from kb_update.failures import tag_of
from kb_update.graph import Components, EngineConfig
from kb_update.price_job import PriceChangeJob
from kb_update.runner import (
    ApprovalNeeded,
    KbUpdateRun,
    RoundDone,
    RunawayRunError,
    SplitDone,
    UnitChecked,
    drive,
    sqlite_checkpointer,
)
from kb_update.types import WorkerInput
from kb_update.workers import OfflineWorker
from tests.kb_update.conftest import CountingWorker, Decisions, snapshot

DERIVED = ["billing/annual.md", "billing/plans.md"]  # first wave units with $120/year totals


def test_only_failing_units_are_retried_each_with_its_own_evidence(offline_run, job: PriceChangeJob) -> None:
    worker = CountingWorker(OfflineWorker(job))
    finished, run = offline_run(worker=worker)
    assert worker.calls() == {"billing/annual.md": 2, "billing/plans.md": 2, "faq.md": 1,
                              "fr/tarifs.md": 1, "getting-started.md": 1}
    status = run.values()["status"]
    for uid in DERIVED:
        first, retry = worker.tasks[uid]
        assert first["evidence"] == [] and first["attempt"] == 1
        assert retry["attempt"] == 2
        assert retry["evidence"] == status[uid]["history"][0]["failures"]  # verbatim gate output
        assert all(tag_of(m) == "derived-amount" for m in retry["evidence"])
        assert retry["scope"] == status[uid]["scope"]
        assert status[uid]["status"] == "done" and status[uid]["attempts"] == 2
    assert finished.outcome == "published"
    assert finished.stats["corrected"] == 2 and finished.stats["retries"] == 2


def test_a_repeated_failure_yields_a_lesson_that_later_units_receive(offline_run, job: PriceChangeJob) -> None:
    worker = CountingWorker(OfflineWorker(job))
    decisions = Decisions(lessons=True)
    _finished, run = offline_run(decide=decisions, worker=worker)
    assert decisions.kinds() == ["lesson", "publish"]
    lesson = decisions.asked[0].payload["lesson"]
    assert lesson["tag"] == "derived-amount" and lesson["units"] == DERIVED
    assert "$120/year → $144/year" in lesson["text"]
    # wave 1 ran before the lesson; fr/tarifs.md starts after it was approved
    assert all(not worker.tasks[uid][0]["lessons"] for uid in DERIVED + ["faq.md"])
    [fr_task] = worker.tasks["fr/tarifs.md"]
    assert [lesson_["text"] for lesson_ in fr_task["lessons"]] == [lesson["text"]]
    assert run.values()["status"]["fr/tarifs.md"]["history"][0]["failures"] == []  # right first time


def test_a_rejected_lesson_stays_out_of_the_briefs(offline_run, job: PriceChangeJob) -> None:
    worker = CountingWorker(OfflineWorker(job))
    finished, run = offline_run(decide=Decisions(lessons=False), worker=worker)
    assert all(not task["lessons"] for tasks in worker.tasks.values() for task in tasks)
    assert worker.calls()["fr/tarifs.md"] == 2  # it has to be corrected instead
    assert [lesson["status"] for lesson in run.values()["lessons"]] == ["rejected"]
    assert finished.outcome == "published"


def test_max_attempts_escalates_with_the_full_failure_history(offline_run, job: PriceChangeJob, kb: Path) -> None:
    def stubborn(task: WorkerInput) -> str:  # never learns, never reads its evidence
        return job.offline_rewrite({**task, "evidence": [], "lessons": []})

    worker = CountingWorker(stubborn)
    finished, run = offline_run(decide=Decisions(lessons=False), worker=worker)
    status = run.values()["status"]
    for uid in DERIVED + ["fr/tarifs.md"]:
        record = status[uid]
        assert record["status"] == "escalated" and worker.calls()[uid] == 3
        assert "after 3 attempts" in record["escalation"]
        assert [a["attempt"] for a in record["history"]] == [1, 2, 3]
        assert all(a["failures"] for a in record["history"])
    assert finished.stats["escalated"] == 3
    review = run.values()["review"]
    escalated = [u for u in review["units"] if u["status"] == "escalated"]
    assert {u["path"] for u in escalated} == set(DERIVED + ["fr/tarifs.md"])
    assert all(len(u["history"]) == 3 for u in escalated)
    assert sorted(finished.published["not_published"]) == sorted(DERIVED + ["fr/tarifs.md"])
    assert "$10/month" in (kb / "billing/plans.md").read_text()  # an escalated article is not written


def test_a_worker_that_raises_fails_only_its_unit(offline_run, job: PriceChangeJob) -> None:
    inner = OfflineWorker(job)

    def flaky(task: WorkerInput) -> str:
        if task["unit_id"] == "faq.md":
            raise RuntimeError("provider exploded")
        return inner(task)

    finished, run = offline_run(worker=flaky)
    status = run.values()["status"]
    assert status["faq.md"]["status"] == "escalated"
    assert [a["failures"] for a in status["faq.md"]["history"]] == [
        ["[worker-error] RuntimeError: provider exploded"]] * 3
    assert all(status[uid]["status"] == "done" for uid in status if uid != "faq.md")
    assert "faq.md" not in finished.published["written"] and len(finished.published["written"]) == 4


def test_reject_writes_nothing(offline_run, kb: Path) -> None:
    before = snapshot(kb)
    decisions = Decisions(publish=False)
    finished, _run = offline_run(decide=decisions)
    assert finished.outcome == "rejected" and finished.published is None
    assert decisions.kinds().count("publish") == 1  # one approval for the whole job
    assert snapshot(kb) == before


def test_review_shows_a_diff_per_unit_gates_and_corrections(offline_run) -> None:
    decisions = Decisions(publish=False)
    offline_run(decide=decisions)
    publish = decisions.asked[-1]
    review = publish.payload["review"]
    plans = next(u for u in review["units"] if u["path"] == "billing/plans.md")
    assert "-| Base | $10/month | $120/year |" in plans["diff"] and "+| Base | $12/month | $144/year |" in plans["diff"]
    assert plans["corrected"] and all(not m for m in plans["gates"].values())
    markdown = publish.payload["markdown"]
    assert "```diff" in markdown and "billing/plans.md — ✅ passed after 2 attempts (corrected)" in markdown
    assert "referral.md" in markdown  # discarded hits are listed with their reason


def test_the_run_wide_step_limit_ends_a_runaway_run_with_a_clear_error(offline_run, kb: Path) -> None:
    before = snapshot(kb)
    with pytest.raises(RunawayRunError, match="recursion limit"):
        offline_run(config=EngineConfig(wave_size=1, recursion_limit=6))
    assert snapshot(kb) == before


def test_progress_events_per_unit(offline_run) -> None:
    events: list = []
    offline_run(events=events)
    split = next(e for e in events if isinstance(e, SplitDone))
    assert split.hits == 11 and len(split.units) == 5 and split.discarded == 2
    checked = [e.attempt["unit_id"] for e in events if isinstance(e, UnitChecked)]
    assert sorted(set(checked)) == sorted(split.units) and len(checked) == 7
    first_round = next(e for e in events if isinstance(e, RoundDone))
    assert first_round.status == {"billing/annual.md": "retry", "billing/plans.md": "retry", "faq.md": "done"}


def test_a_paused_run_resumes_from_the_sqlite_checkpoint_in_a_new_run_object(
        tmp_path: Path, kb: Path, job: PriceChangeJob) -> None:
    db = tmp_path / "checkpoints.sqlite"
    with sqlite_checkpointer(db) as saver:
        first = KbUpdateRun(Components.offline(job), kb, saver, EngineConfig(wave_size=3))
        events = list(first.stream())
        assert isinstance(events[-1], ApprovalNeeded) and events[-1].kind == "lesson"
        thread = first.thread_id
    with sqlite_checkpointer(db) as saver:  # a new connection, as after a restart
        second = KbUpdateRun(Components.offline(job), kb, saver, EngineConfig(wave_size=3), thread_id=thread)
        assert second.pending() is not None and second.pending().kind == "lesson"
        finished = drive(second, Decisions())
    assert finished.outcome == "published"
    assert "$12/month" in (kb / "billing/plans.md").read_text()


def test_workers_of_a_round_really_run_in_parallel(offline_run, job: PriceChangeJob) -> None:
    import threading

    barrier = threading.Barrier(3, timeout=10)  # the three units of wave 1 must be inside the worker together
    inner = OfflineWorker(job)

    def meeting(task: WorkerInput) -> str:
        if task["attempt"] == 1 and task["unit_id"] in ("billing/annual.md", "billing/plans.md", "faq.md"):
            barrier.wait()
        return inner(task)

    _finished, run = offline_run(worker=meeting)
    assert not barrier.broken
    assert all(s["status"] == "done" for s in run.values()["status"].values())


def test_secrets_are_scrubbed_from_worker_errors(kb: Path, job: PriceChangeJob) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    def leaky(task: WorkerInput) -> str:
        raise RuntimeError("401 for key sk-SECRET-123")

    parts = Components.offline(job, worker=leaky)
    parts.secrets = ("sk-SECRET-123",)
    run = KbUpdateRun(parts, kb, InMemorySaver(), EngineConfig(max_attempts=1))
    finished = drive(run, Decisions())
    assert finished.outcome == "nothing-to-publish"
    text = str(run.values())
    assert "sk-SECRET-123" not in text and "401 for key ***" in text
