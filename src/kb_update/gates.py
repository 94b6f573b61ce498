"""Generic gates (paragraph diff, links), running gates on a unit's output, and the model judge.

Code gates run first; the judge only where code cannot decide. With a model configured the
judge is a separate model call answering one pass/fail question; offline, the job's clearly
labelled code stand-in takes its place.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from kb_update.failures import failure
from kb_update.markdown import blocks, links, paragraph_texts
from kb_update.schemas import JudgeVerdict
from kb_update.types import Gate, Unit
from relais.retry import RetryPolicy

JUDGE_SYSTEM = (
    "You are a strict reviewer. Answer one pass/fail question about one article. Cite the paragraph "
    "number and the exact text of every problem, and say what it should be. Set needs_person when the fix "
    "needs a decision the job does not give (for example another product's price)."
)


class ParagraphDiff:
    """Code gate: only paragraphs in scope (the price-bearing ones) differ from the original."""

    name = "paragraph-diff"

    def __call__(self, unit: Unit, text: str) -> list[str]:
        before, after = paragraph_texts(unit["original"]), paragraph_texts(text)
        if len(before) != len(after):
            return [failure("structure", f"the article has {len(after)} paragraphs instead of {len(before)}; "
                                         "keep every paragraph and blank line as they were.")]
        scope = set(unit["scope"])
        allowed = ", ".join(str(i + 1) for i in sorted(scope)) or "none"
        out = []
        for index, (old, new) in enumerate(zip(before, after)):
            if old != new and index not in scope:
                shown = old if len(old) <= 600 else old[:600] + " …"
                out.append(failure(
                    "out-of-scope",
                    f"changed but carries no price (you may change paragraph(s) {allowed} only); restore it "
                    f"exactly as it was: «{shown}»", index))
        return out


class LinksPreserved:
    """Code gate: every link target of the original is still there, and none was added."""

    name = "links-preserved"

    def __call__(self, unit: Unit, text: str) -> list[str]:
        before, after = links(unit["original"]), links(text)
        out = []
        for target in sorted(set(before) | set(after)):
            if after[target] < before[target]:
                out.append(failure("links", f"link `{target}` is missing (was there {before[target]}×, now "
                                            f"{after[target]}×); keep every link exactly."))
            elif after[target] > before[target]:
                out.append(failure("links", f"link `{target}` was added; do not add links."))
        return out


class ModelJudge:
    """The judge gate as a model call (structured verdict)."""

    name = "judge (model)"

    def __init__(self, model: BaseChatModel, question: str, retry: RetryPolicy | None = None) -> None:
        self.structured = model.with_structured_output(JudgeVerdict)
        self.question = question
        self.retry = retry or RetryPolicy()

    def __call__(self, unit: Unit, text: str) -> list[str]:
        numbered = "\n\n".join(f"¶{b.index + 1}: {b.text}" for b in blocks(text))
        ruled_out = "\n".join(f"- paragraph {h['paragraph'] + 1}: `{h['text']}`" for h in unit["discarded"]) or "- none"
        prompt = f"{self.question}\nRuled out:\n{ruled_out}\nArticle ({unit['path']}):\n{numbered}"
        verdict: JudgeVerdict = self.retry.synchronous()(
            self.structured.invoke, [SystemMessage(JUDGE_SYSTEM), HumanMessage(prompt)]
        )
        if not verdict.contradicts:
            return []
        tag = "needs-person" if verdict.needs_person else "judge"
        problems = [p.strip() for p in verdict.problems if p.strip()] or ["the article still contradicts the new value"]
        return [f"[{tag}] {problem}" for problem in problems]


def run_gates(unit: Unit, text: str, code_gates: list[Gate], judge: Gate,
              judge_after_code: bool) -> tuple[dict[str, list[str]], list[str]]:
    """(failures per gate name, names of skipped gates).

    A model judge is skipped while code gates fail: cheaper, and its verdict would be about a
    draft that is going to change anyway. A code stand-in judge always runs.
    """
    results = {gate.name: list(gate(unit, text)) for gate in code_gates}
    if judge_after_code and any(results.values()):
        return results, [judge.name]
    results[judge.name] = list(judge(unit, text))
    return results, []
