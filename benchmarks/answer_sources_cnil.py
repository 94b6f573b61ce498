"""Is the right article among an answer's sources? (CNIL French FAQ, paraphrased questions)

A quality measurement run by `make bench` (as `sources`): each paraphrased question of
`qrels/test_paraphrase.tsv` goes through the offline answer path (`KnowledgeBase.search` with
its relevance bar, then the composer); we count how often a relevant article is
- in retrieval's top 3 (documents),
- among the cited sources of the answer (before related articles existed),
- among cited + related sources (what `relais ask --json` lists now).
Before and after come from the same answers in the same run. The CNIL set lives in
`../shared/datasets/cnil-faq-fr` (override with `RELAIS_BENCH_CNIL` or `--dataset`); without it
the benchmark records a note and no figures.
Run alone: `.venv/bin/python -m benchmarks.answer_sources_cnil [--dataset DIR]`.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from benchmarks._common import REPO_ROOT, BenchResult, Check, run_main

CNIL_DIR = Path(os.environ.get("RELAIS_BENCH_CNIL", REPO_ROOT.parent / "shared" / "datasets" / "cnil-faq-fr"))


def body(result: BenchResult, dataset_dir: Path, qrels: str) -> None:
    if not (dataset_dir / qrels).is_file():
        result.notes.append(f"skipped: no {dataset_dir / qrels}")
        return
    from knowledge.beir import load_beir
    from knowledge.evaluation import open_eval_index
    from knowledge.extractive import extractive_answer

    dataset = load_beir(dataset_dir, qrels)
    kb, _ = open_eval_index(dataset)
    counts = {"questions": 0, "top3": 0, "cited": 0, "cited_or_related": 0, "answered": 0}
    for qid, judged in sorted(dataset.qrels.items()):
        relevant = {d for d, grade in judged.items() if grade > 0}
        if not relevant:
            continue
        question = dataset.queries[qid]
        counts["questions"] += 1
        top3 = kb.search(question, top_k=3, min_score=0.0, group_by_source=True)
        counts["top3"] += bool(relevant & {h.source for h in top3})
        answer = extractive_answer(question, kb.search(question), kb.embedder, kb=kb)
        counts["answered"] += answer.found
        cited = {h.source for h in answer.sources}
        counts["cited"] += bool(relevant & cited)
        counts["cited_or_related"] += bool(relevant & (cited | {h.source for h in answer.related}))
    n = max(counts["questions"], 1)
    rate = {k: counts[k] / n for k in ("top3", "answered", "cited", "cited_or_related")}
    result.figures.update({"encoder": kb.embedder.name, **counts, **{f"{k}_rate": round(v, 3) for k, v in rate.items()}})
    result.checks.append(Check("CNIL right article among sources: cited+related vs cited", rate["cited_or_related"],
                               rate["cited"], "", ratio=rate["cited_or_related"] / max(rate["cited"], 1e-9)))
    result.checks.append(Check("CNIL right article: among sources vs retrieval top 3", rate["cited_or_related"],
                               rate["top3"], "", delta=rate["cited_or_related"] - rate["top3"]))
    result.notes.append(f"{counts['questions']} paraphrased questions ({qrels}); rates are shares of questions")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=CNIL_DIR)
    parser.add_argument("--qrels", default="qrels/test_paraphrase.tsv")
    args = parser.parse_args(argv)
    return run_main("sources", "Answer sources: the right article among an answer's sources (CNIL FAQ, FR)",
                    lambda r: body(r, args.dataset, args.qrels))


if __name__ == "__main__":
    raise SystemExit(main())
