"""Is the right article among an answer's sources? (CNIL French FAQ, paraphrased questions)

A quality measurement for the README, not part of `make bench`: each paraphrased question of
`qrels/test_paraphrase.tsv` goes through the offline answer path (`KnowledgeBase.search` with
its relevance bar, then the composer); we count how often a relevant article is
- in retrieval's top 3 (documents),
- among the cited sources of the answer (before related articles existed),
- among cited + related sources (what `relais ask --json` lists now).
Run: `.venv/bin/python -m benchmarks.answer_sources_cnil [--dataset DIR]`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks._common import REPO_ROOT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=REPO_ROOT.parent / "shared" / "datasets" / "cnil-faq-fr")
    parser.add_argument("--qrels", default="qrels/test_paraphrase.tsv")
    args = parser.parse_args(argv)

    from knowledge.beir import load_beir
    from knowledge.evaluation import open_eval_index
    from knowledge.extractive import extractive_answer

    dataset = load_beir(args.dataset, args.qrels)
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
    print(json.dumps({**counts, **{f"{k}_rate": round(counts[k] / n, 3)
                                   for k in ("top3", "answered", "cited", "cited_or_related")}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
