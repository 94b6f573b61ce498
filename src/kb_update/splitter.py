"""Splitter: code search first, then a model (or the job's offline rules) keeps the relevant
hits and writes a one-line brief per unit; a code check proves the split covers every hit.

The coverage check is what makes the split trustworthy: every search hit is either kept in
exactly one unit or discarded with a reason, and nothing is invented or counted twice.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from kb_update.articles import read_article, sha256_text
from kb_update.job import Job
from kb_update.markdown import title as md_title
from kb_update.schemas import SplitPlan
from kb_update.types import Hit, HitDecision, Unit
from relais.retry import RetryPolicy

log = logging.getLogger(__name__)


class SplitCoverageError(RuntimeError):
    """The split does not account for every search hit exactly once."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("the split does not cover the search hits: " + "; ".join(problems))


@dataclass
class SplitResult:
    """Hits, the verdict on each, and the units built from the kept ones."""

    hits: list[Hit]
    decisions: list[HitDecision]
    units: list[Unit]
    engine: str  # "rules" or "model"


def _label(hit: Hit) -> str:
    return f"{hit['id']} ({hit['path']} paragraph {hit['paragraph'] + 1}, `{hit['text']}`)"


def check_coverage(hits: list[Hit], decisions: list[HitDecision], units: list[Unit]) -> list[str]:
    """Problems with a split (empty = every hit kept once or discarded with a reason)."""
    problems: list[str] = []
    by_id = {hit["id"]: hit for hit in hits}
    counts = Counter(d["hit_id"] for d in decisions)
    for hit in hits:
        if counts[hit["id"]] == 0:
            problems.append(f"hit {_label(hit)} was neither kept nor discarded")
        elif counts[hit["id"]] > 1:
            problems.append(f"hit {_label(hit)} was decided {counts[hit['id']]} times")
    for hit_id in counts:
        if hit_id not in by_id:
            problems.append(f"a verdict names hit {hit_id}, which the search never found")
    kept = {d["hit_id"] for d in decisions if d["keep"]}
    for decision in decisions:
        if not decision["keep"] and not decision["reason"].strip():
            problems.append(f"hit {decision['hit_id']} was discarded without a reason")
    placed = Counter(hit["id"] for unit in units for hit in unit["hits"])
    for hit_id in sorted(kept & set(by_id)):
        if placed[hit_id] == 0:
            problems.append(f"kept hit {_label(by_id[hit_id])} is in no unit")
    for hit_id, count in placed.items():
        if count > 1:
            problems.append(f"hit {hit_id} is in {count} units")
        if hit_id not in kept:
            problems.append(f"unit work includes hit {hit_id}, which was not kept")
    paths = Counter(unit["path"] for unit in units)
    problems += [f"{path} has {n} units; one article is one unit" for path, n in paths.items() if n > 1]
    for unit in units:
        brief = unit["brief"].strip()
        if not brief:
            problems.append(f"unit {unit['path']} has no brief")
        elif "\n" in brief:
            problems.append(f"the brief of {unit['path']} is not one line")
        if any(hit["path"] != unit["path"] for hit in unit["hits"]):
            problems.append(f"unit {unit['path']} holds hits from another file")
    return problems


def build_units(job: Job, kb_dir: Path, hits: list[Hit], decisions: list[HitDecision],
                briefs: dict[str, str] | None = None) -> list[Unit]:
    """One unit per article with at least one kept hit; discarded hits travel with it."""
    verdict = {d["hit_id"]: d for d in decisions}
    kept: dict[str, list[Hit]] = defaultdict(list)
    dropped: dict[str, list[Hit]] = defaultdict(list)
    for hit in hits:
        decision = verdict.get(hit["id"])
        (kept if decision and decision["keep"] else dropped)[hit["path"]].append(hit)
    units: list[Unit] = []
    for path in sorted(kept):
        text = read_article(kb_dir / path) or ""
        unit = Unit(id=path, path=path, title=md_title(text, Path(path).stem), brief="", hits=kept[path],
                    discarded=dropped.get(path, []), scope=[], original=text, sha256=sha256_text(text))
        unit["scope"] = job.scope(unit)
        unit["brief"] = " ".join((briefs or {}).get(path, "").split()) if briefs is not None else job.brief(unit)
        units.append(unit)
    return units


def split_with_rules(job: Job, kb_dir: Path, hits: list[Hit]) -> SplitResult:
    """Offline splitter: the job's keep/discard rules and template briefs."""
    decisions = []
    for hit in hits:
        keep, reason = job.rule_decision(hit)
        decisions.append(HitDecision(hit_id=hit["id"], keep=keep, reason=reason))
    return SplitResult(hits, decisions, build_units(job, kb_dir, hits, decisions), "rules")


_SPLIT_SYSTEM = (
    "You split a knowledge-base update into independent units, one per article. For every search hit, "
    "decide whether it is really about the value being changed (keep) or something else (discard), with a "
    "short reason either way. For every article with at least one kept hit, write a self-contained one-line "
    "brief: the goal, where in the article, and what must stay unchanged. Cover every hit id exactly once."
)


def _split_prompt(job: Job, hits: list[Hit], problems: list[str]) -> list:
    lines = [f"Job: {job.summary()}", "Shared decisions:"]
    lines += [f"- {k}: {v}" for k, v in job.decisions().items()]
    lines.append("Search hits:")
    lines += [f"- {h['id']} · {h['path']} · paragraph {h['paragraph'] + 1} · `{h['text']}` · {h['context']}"
              for h in hits]
    if problems:
        lines.append("Your previous split failed these checks; fix exactly these:")
        lines += [f"- {p}" for p in problems]
    return [SystemMessage(_SPLIT_SYSTEM), HumanMessage("\n".join(lines))]


def split_with_model(job: Job, kb_dir: Path, hits: list[Hit], model: BaseChatModel,
                     retry: RetryPolicy | None = None, rounds: int = 2) -> SplitResult:
    """Model splitter; the coverage check's problems go back verbatim for one more try."""
    structured = model.with_structured_output(SplitPlan)
    policy = retry or RetryPolicy()
    problems: list[str] = []
    for _ in range(max(1, rounds)):
        plan: SplitPlan = policy.synchronous()(structured.invoke, _split_prompt(job, hits, problems))
        decisions = [HitDecision(hit_id=v.hit_id, keep=v.keep, reason=v.reason) for v in plan.verdicts]
        briefs = {b.path: b.brief for b in plan.briefs}
        known = {hit["id"] for hit in hits}
        units = build_units(job, kb_dir, hits, [d for d in decisions if d["hit_id"] in known], briefs)
        problems = check_coverage(hits, decisions, units)
        if not problems:
            return SplitResult(hits, decisions, units, "model")
        log.warning("split coverage problems: %s", problems)
    raise SplitCoverageError(problems)


def split(job: Job, kb_dir: Path, model: BaseChatModel | None = None,
          retry: RetryPolicy | None = None) -> SplitResult:
    """Search, then split with the model when one is given, else with the job's rules; always checked."""
    hits = job.search(kb_dir)
    result = split_with_rules(job, kb_dir, hits) if model is None else split_with_model(
        job, kb_dir, hits, model, retry)
    problems = check_coverage(result.hits, result.decisions, result.units)
    if problems:
        raise SplitCoverageError(problems)
    return result
