"""Workers: one call rewrites one unit, from its brief, the shared decisions, the lessons and,
on a retry, the failing gate output verbatim plus the paragraphs it may change.

`ModelWorker` asks a chat model for a structured `RewrittenArticle`; `OfflineWorker` is the
job's deterministic rewrite, used when no model is configured.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from kb_update.job import Job
from kb_update.markdown import blocks
from kb_update.schemas import RewrittenArticle
from kb_update.types import WorkerInput
from relais.retry import ModelOutputError, RetryPolicy

WORKER_SYSTEM = (
    "You update one help-centre article. Apply the shared decisions exactly, change only the paragraphs "
    "in your scope, keep the article's language and formatting, and return the complete article text."
)


def _paragraph_list(numbers: list[int]) -> str:
    return ", ".join(str(n + 1) for n in sorted(numbers)) or "none"


def worker_prompt(task: WorkerInput) -> str:
    """The fixed worker template (from the design): unit, goal, decisions, lessons, scope, checks, evidence."""
    paragraphs = {b.index: b.text for b in blocks(task["article"])}
    lines = [
        f"Unit: {task['unit_id']} — {task['title']}",
        f"Goal: {task['brief']}",
        "Shared decisions (apply them exactly):",
        *[f"- {name}: {value}" for name, value in task["decisions"].items()],
        "Lessons from earlier units:",
        *([f"- {lesson['text']}" for lesson in task["lessons"]] or ["- none so far"]),
        (f"Scope: change only paragraphs {_paragraph_list(task['scope'])} (paragraphs are blocks separated by "
         "a blank line, numbered from 1). Leave every other sentence exactly as it is."),
        "Paragraphs in scope:",
        *[f"¶{i + 1}: {paragraphs[i]}" for i in sorted(task["scope"]) if i in paragraphs],
    ]
    if task["discarded"]:
        lines.append("Leave these mentions as they are (ruled out as not the value being changed):")
        lines += [f"- paragraph {h['paragraph'] + 1}: `{h['text']}` — {h['context']}" for h in task["discarded"]]
    lines.append("Checks your output must pass:")
    lines += [f"- {check}" for check in task["checks"]]
    if task["evidence"]:
        lines.append(f"This is attempt {task['attempt']}. Your last attempt failed these checks:")
        lines += [f"- {message}" for message in task["evidence"]]
        lines.append(f"Fix exactly these; you may change only paragraphs {_paragraph_list(task['scope'])}.")
    lines += ["Article:", "<<<", task["article"], ">>>",
              "Return the complete text of the article and nothing else."]
    return "\n".join(lines)


def worker_messages(task: WorkerInput) -> list[BaseMessage]:
    return [SystemMessage(WORKER_SYSTEM), HumanMessage(worker_prompt(task))]


class ModelWorker:
    """A chat-model worker with structured output; transient errors retried by the policy."""

    def __init__(self, model: BaseChatModel, retry: RetryPolicy | None = None) -> None:
        self.structured = model.with_structured_output(RewrittenArticle)
        self.retry = retry or RetryPolicy()

    def __call__(self, task: WorkerInput) -> str:
        result = self.retry.synchronous()(self.structured.invoke, worker_messages(task))
        if not isinstance(result, RewrittenArticle) or not result.text.strip():
            raise ModelOutputError("the worker returned no article text")
        return _keep_final_newline(task["article"], result.text)


class OfflineWorker:
    """The job's deterministic rewrite (no model): literal first, evidence-driven on retries."""

    def __init__(self, job: Job) -> None:
        self.job = job

    def __call__(self, task: WorkerInput) -> str:
        return self.job.offline_rewrite(task)


def _keep_final_newline(original: str, text: str) -> str:
    """Models often drop or add the trailing newline; keep the original's."""
    body = text.rstrip("\n")
    return body + original[len(original.rstrip("\n")):]
