"""Answers through a whole turn, for `relais eval answers`: the model's answers checked as the
composer's are.

With a model configured, the eval must read what a person would get: the question goes through
`Orchestrator.process_question` (no hand-off), so the model receives the same retrieved, cleaned
context as in the app (the same "not found" gate included), and its text is scored by the same
fact-recall and fragment rules (`knowledge.answer_eval`). An answer counts as found when it
cites sources: a turn whose context held no passage (nothing relevant, or a subject the base
never names) cites none.
"""

from __future__ import annotations

import asyncio
from typing import Any

from knowledge.answer_eval import AnswerFn
from relais.events import ErrorEvent, SourcesEvent, TextChunk


async def _turn(orchestrator: Any, question: str) -> tuple[str, list[dict[str, Any]]]:
    text, sources, errors = "", [], []
    async for event in orchestrator.process_question(question, None):
        if isinstance(event, TextChunk):
            text += event.text
        elif isinstance(event, SourcesEvent):
            sources = [s for s in event.sources if not s.get("related")]  # cited, not "see also"
        elif isinstance(event, ErrorEvent):
            errors.append(event.message)
    if errors and not text:
        raise RuntimeError(errors[0])
    return text.strip(), sources


def turn_answerer(orchestrator: Any) -> AnswerFn:
    """An `AnswerFn` over `orchestrator`'s turns: (text, found, the passages it was given, sources)."""

    def answer(question: str) -> tuple[str, bool, list[str], list[str]]:
        text, sources = asyncio.run(_turn(orchestrator, question))
        return text, bool(sources), [s["excerpt"] for s in sources], [s["source"] for s in sources]

    return answer
