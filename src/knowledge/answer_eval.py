"""`relais eval answers FILE`: do the offline answers state the facts asked, and read whole?

Each JSONL line is `{"question": "...", "facts": [["$5", "5 dollars"], ["50%", "half"]]}`:
every inner list is one fact, present when any of its strings appears in the answer
(case-insensitive, Markdown emphasis and links reduced to text, "200Mo" read as "200 Mo"). An optional
`"expect_found": false` marks an off-topic question that must get the honest "not found".
The report gives fact recall (over the answerable questions), the fragment rate, and both ways
of getting "not found" wrong: `answerable_declined_rate` (an answerable question got "not found")
and `unanswerable_answered_rate` (an off-topic one got an answer).
Every question goes through the same path as the app's offline engine (`KnowledgeBase.search`,
then the answer composer), in one process. Fragments are defined in `knowledge.fragments`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from knowledge.extractive import extractive_answer
from knowledge.fragments import fragment_reasons, strip_markdown
from knowledge.retrieval import get_knowledge_base


@dataclass(frozen=True)
class AnswerCase:
    question: str
    facts: list[list[str]]
    expect_found: bool = True


@dataclass
class AnsweredCase:
    question: str
    answer: str
    found: bool
    missing: list[str]
    fragments: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    expect_found: bool = True


def load_cases(path: Path) -> list[AnswerCase]:
    cases = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            facts = [[str(s) for s in ([f] if isinstance(f, str) else f)] for f in row.get("facts", [])]
            cases.append(AnswerCase(str(row["question"]), facts, bool(row.get("expect_found", True))))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: not a {{question, facts}} line ({exc})") from None
    return cases


_NUMBER_UNIT = re.compile(r"(?<=\d)(?=[^\W\d_])")  # "200Mo" and "200 Mo" state one fact


def _normalise(text: str) -> str:
    """Lower case, Markdown reduced to text, typographic apostrophes and spaces made plain, a number
    and its unit always one space apart: the fact is what is compared, not how it is typeset."""
    text = strip_markdown(text).lower().replace("\u2019", "'").replace("\u00a0", " ").replace("\u202f", " ")
    return " ".join(_NUMBER_UNIT.sub(" ", text).split())


def missing_facts(answer: str, facts: list[list[str]]) -> list[str]:
    """Each fact none of whose strings is in the answer (shown as "a | b")."""
    text = _normalise(answer)
    return [" | ".join(fact) for fact in facts if not any(_normalise(s) in text for s in fact)]


AnswerFn = Callable[[str], tuple[str, bool, list[str], list[str]]]  # text, found, passages, sources


def offline_answerer(kb: Any = None) -> AnswerFn:
    """The app's offline path: hybrid search, then the composer, with the KB's own encoder."""
    kb = kb or get_knowledge_base()

    def answer(question: str) -> tuple[str, bool, list[str], list[str]]:
        hits = kb.search(question)
        result = extractive_answer(question, hits, kb.embedder, kb=kb)
        # the composer also reads the cited articles' other chunks (the one after the best unit, a
        # linked page): a code block quoted whole from one of them is whole, not a fragment
        cited = [c.text for s in dict.fromkeys(h.source for h in result.sources) for c in kb.source_chunks(s)]
        return result.text, result.found, [h.text for h in hits] + cited, [h.source for h in result.sources]

    return answer


def evaluate_answers(cases: list[AnswerCase], answer_fn: AnswerFn) -> dict[str, Any]:
    """Fact recall (share of all facts stated), fragment rate (share of answers), per answer."""
    started = time.perf_counter()
    answered: list[AnsweredCase] = []
    total_facts = found_facts = fragments = wrong_found = declined = answered_off = markup = 0
    for case in cases:
        text, found, passages, sources = answer_fn(case.question)
        missing = missing_facts(text, case.facts) if found or case.facts else []
        reasons = fragment_reasons(text, passages) if found else []
        if found != case.expect_found:
            missing.append("(expected an answer)" if case.expect_found else "(expected not found)")
            wrong_found += 1
            declined += case.expect_found
            answered_off += not case.expect_found
        total_facts += len(case.facts)
        found_facts += len(case.facts) - len([m for m in missing if not m.startswith("(")])
        fragments += bool(reasons)
        markup += "markup_artifact" in reasons
        answered.append(AnsweredCase(case.question, text, found, missing, reasons, sources, case.expect_found))
    n = len(cases)
    answerable = sum(c.expect_found for c in cases)
    return {
        "fact_recall": round(found_facts / total_facts, 4) if total_facts else 1.0,
        "fragment_rate": round(fragments / n, 4) if n else 0.0,
        "markup_rate": round(markup / n, 4) if n else 0.0,
        "n": n,
        "relevance_errors": wrong_found,
        "answerable": answerable,
        "answerable_declined_rate": round(declined / answerable, 4) if answerable else 0.0,
        "unanswerable": n - answerable,
        "unanswerable_answered_rate": round(answered_off / (n - answerable), 4) if n > answerable else 0.0,
        "seconds_per_question": round((time.perf_counter() - started) / max(n, 1), 3),
        "answers": [
            {"question": a.question, "answer": a.answer, "missing": a.missing,
             "fragments": a.fragments, "sources": a.sources, "expect_found": a.expect_found} for a in answered
        ],
    }
