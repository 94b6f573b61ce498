"""The model path: splitter, worker, judge and lesson writer are chat models (scripted fakes)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from langchain_core.messages import BaseMessage

from kb_update.graph import Components, EngineConfig
from kb_update.price_job import PriceChangeJob
from kb_update.runner import ApprovalNeeded
from relais.retry import RetryPolicy
from relais.testing import ScriptedChatModel
from tests.kb_update.conftest import FIXTURE_KB, Decisions, run_job

JUDGE_FAILURE = "paragraph {n}: `{old}` is an annual total of the old price; `{old}` should be `{new}`"


def _article(prompt: str) -> str:
    return prompt.split("<<<\n", 1)[1].rsplit("\n>>>", 1)[0]


def _text(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages)


def _model_kb(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    (kb / "billing").mkdir(parents=True)
    for rel in ("billing/annual.md", "billing/plans.md", "referral.md"):
        shutil.copy(FIXTURE_KB / rel, kb / rel)
    return kb


def test_model_worker_judge_and_lesson_writer(tmp_path: Path, job: PriceChangeJob) -> None:
    kb = _model_kb(tmp_path)
    hits = job.search(kb)

    def main_model(messages: list[BaseMessage]) -> dict:
        system, prompt = str(messages[0].content), _text(messages)
        if system.startswith("You split"):
            return {
                "verdicts": [{"hit_id": h["id"], "keep": h["path"] != "referral.md",
                              "reason": "plan price" if h["path"] != "referral.md" else "a referral credit"}
                             for h in hits],
                "briefs": [{"path": p, "brief": f"Change the Base price in {p} to $12/month."}
                           for p in ("billing/annual.md", "billing/plans.md")],
            }
        if system.startswith("Several workers failed"):
            return {"text": "Also update yearly totals: 12 × the new monthly price."}
        article = _article(prompt)
        text = re.sub(r"\$10(?=/month| each month| per month)", "$12", article)
        if "Your last attempt failed these checks" in prompt:  # apply the judge's evidence
            text = text.replace("$120/year", "$144/year")
        return {"text": text}

    def judge(messages: list[BaseMessage]) -> dict:
        paragraphs = re.split(r"\n\n(?=¶\d+: )", _text(messages).split("\n¶1: ", 1)[1])
        stale = [n for n, body in enumerate(paragraphs, 1) if "$120/year" in body]
        if not stale:
            return {"contradicts": False, "problems": []}
        return {"contradicts": True, "problems": [
            JUDGE_FAILURE.format(n=n, old="$120/year", new="$144/year") for n in stale]}

    model = ScriptedChatModel(script=[main_model], repeat_last=True)
    judge_model = ScriptedChatModel(script=[judge], repeat_last=True)
    parts = Components.with_model(job, model, judge_model=judge_model, retry=RetryPolicy.no_wait(1))
    decisions = Decisions()
    finished, run = run_job(parts, kb, decisions, config=EngineConfig(wave_size=2))

    assert finished.outcome == "published"
    assert "$12/month | $144/year" in (kb / "billing/plans.md").read_text()
    assert "$144/year instead of $12 each month" in (kb / "billing/annual.md").read_text()
    assert (kb / "referral.md").read_text() == (FIXTURE_KB / "referral.md").read_text()

    worker_prompts = [p for p in model.prompt_texts() if "Return the complete text of the article" in p]
    assert len(worker_prompts) == 4  # two units, one correction each
    first = next(p for p in worker_prompts if "billing/annual.md" in p and "Your last attempt" not in p)
    assert "Change the Base price in billing/annual.md to $12/month." in first
    assert "- new price: $12/month" in first and "- none so far" in first
    assert "change only paragraphs 3 " in first
    retry = next(p for p in worker_prompts if "billing/annual.md" in p and "Your last attempt" in p)
    assert "[judge] " + JUDGE_FAILURE.format(n=3, old="$120/year", new="$144/year") in retry  # verbatim
    assert "Also update yearly totals" in retry  # the approved lesson joined the brief
    assert decisions.asked[0].kind == "lesson"
    assert decisions.asked[0].payload["lesson"]["text"] == "Also update yearly totals: 12 × the new monthly price."
    lesson_prompt = next(p for p in model.prompt_texts() if "Several workers failed" in p)
    assert "`$120/year` should be `$144/year`" in lesson_prompt

    status = run.values()["status"]
    first_attempt = status["billing/plans.md"]["history"][0]
    assert first_attempt["gates"]["judge (model)"] and not any(
        first_attempt["gates"][name] for name in first_attempt["gates"] if name != "judge (model)")


def test_model_judge_is_skipped_while_code_gates_fail(tmp_path: Path, job: PriceChangeJob) -> None:
    kb = _model_kb(tmp_path)
    (kb / "billing/plans.md").unlink()
    hits = job.search(kb)
    plan = {"verdicts": [{"hit_id": h["id"], "keep": h["path"] == "billing/annual.md", "reason": "r"} for h in hits],
            "briefs": [{"path": "billing/annual.md", "brief": "Update the price."}]}
    lazy = (FIXTURE_KB / "billing/annual.md").read_text()  # a worker that changes nothing
    model = ScriptedChatModel(script=[plan, {"text": lazy}, {"text": lazy}, {"text": lazy}])
    judge_model = ScriptedChatModel(script=[])
    parts = Components.with_model(job, model, judge_model=judge_model, retry=RetryPolicy.no_wait(1))
    asked: list[ApprovalNeeded] = []
    finished, run = run_job(parts, kb, lambda a: asked.append(a) or a.kind != "decision")  # keep the rest as is
    record = run.values()["status"]["billing/annual.md"]
    assert record["status"] == "escalated" and len(record["history"]) == 3
    assert all(a["skipped"] == ["judge (model)"] for a in record["history"])
    assert judge_model.calls == []
    assert finished.outcome == "nothing-to-publish" and {a.kind for a in asked} == {"decision"}
    assert finished.published is None  # the escalated article, left as it is, is written nowhere
