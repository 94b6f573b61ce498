"""A chat thread's knowledge updates: state a change, decide what needs a person, approve, publish.

Speaks the one turn protocol (`relais.events`), so any chat surface renders it with its one
renderer. The run's LangGraph checkpoint, keyed by the chat thread id (`<thread id>:<n>` per job),
is the source of truth for what the run waits on: a lesson, an item left for a person, or the
final publish. Every question is an `InterruptEvent` whose quick choices carry the interrupt id;
`show_pending` brings it back whenever the thread is shown again (reload, restart, another
instance). A click or a typed reply ("publish", "oui", "rejeter", "36") answers the pending
question once: the checkpoint's pending id must match and the run claims it in the checkpoint
file, so a second click or a stale button gets a `StaleChoiceEvent`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

from kb_update import wording
from kb_update.factory import components_for
from kb_update.failures import tag_of
from kb_update.graph import EngineConfig
from kb_update.price_job import PriceChange, PriceChangeJob
from kb_update.replies import decision_reply, yes_no
from kb_update.request import parse_change_request
from kb_update.runner import (
    ApprovalNeeded,
    Finished,
    KbUpdateRun,
    PublishProgress,
    RoundDone,
    SplitDone,
    StaleApproval,
    UnitChecked,
    chat_runs,
    checkpoint_path,
    saved_job,
    sqlite_checkpointer,
)
from kb_update.wording import t
from knowledge.settings import KnowledgeSettings, knowledge_settings
from relais.events import (
    AnsweredEvent,
    ChatEvent,
    Choice,
    InterruptEvent,
    MessageEvent,
    StaleChoiceEvent,
    StepEvent,
)

PROMPT_KIND = "kb_update"  # the kind of every question this conversation asks
LOG_STEP, PUBLISH_STEP = "work-log", "publish"  # the keys of its two steps


class KbUpdateConversation:
    """One chat thread's knowledge updates, read from and resumed through the checkpoint."""

    def __init__(self, thread_id: str, language: str = "en", settings: KnowledgeSettings | None = None,
                 components: Callable[[Any], Any] | None = None, config: Any = None) -> None:
        self.thread_id, self.language = thread_id, wording.lang_of(language)
        self.settings = settings or knowledge_settings()
        self.components = components
        self.config = config
        self._indexed = False  # the publish step was closed by the search index being refreshed

    @property
    def kb_dir(self) -> Path:
        return Path(self.settings.relais_kb_dir).expanduser().resolve()

    # --- entry points ----------------------------------------------------------------------
    async def show_pending(self) -> AsyncIterator[ChatEvent]:
        """The question the thread's latest run waits on (after a reload or a resume), if any."""
        with self._saver() as saver:
            run, pending = await asyncio.to_thread(self._pending, saver)
            if pending is not None:
                yield self._ask(run, pending)

    async def handle(self, text: str) -> AsyncIterator[ChatEvent]:
        """A typed message: the answer to the pending question, else a new change."""
        with self._saver() as saver:
            run, pending = await asyncio.to_thread(self._pending, saver)
            if pending is not None:
                answer = decision_reply(text) if pending.kind == "decision" else yes_no(text)
                if answer is None:
                    busy = parse_change_request(text) is not None
                    yield MessageEvent(t("busy" if busy else "waiting", self.language))
                    yield self._ask(run, pending)
                    return
                yield AnsweredEvent()
                async for event in self._advance(run, lambda: run.answer(answer, pending.interrupt_id)):
                    yield event
                return
        request = parse_change_request(text)
        if request is None:
            yield MessageEvent(t("how_to", self.language))
            return
        async for event in self._start_job(request.old, request.new, request.label, request.effective_date):
            yield event

    async def choose(self, value: str, interrupt_id: str | None, label: str) -> AsyncIterator[ChatEvent]:
        """A button: answers its question only if it is still the pending one (once)."""
        with self._saver() as saver:
            run, pending = await asyncio.to_thread(self._pending, saver)
            if pending is None or (interrupt_id and pending.interrupt_id != interrupt_id):
                yield StaleChoiceEvent()
                return
            yield AnsweredEvent(label)
            if value == "type":  # the click is said, its buttons go; the typed amount answers the question
                item = pending.payload.get("item", {})
                yield MessageEvent(t("type_hint", self.language, current=f"`{item.get('current', '')}`",
                                     example=item.get("computed") or ""))
                return
            answer = button_answer(pending.kind, value)
            async for event in self._advance(run, lambda: run.answer(answer, pending.interrupt_id)):
                yield event

    # --- runs ------------------------------------------------------------------------------
    def _saver(self) -> Any:
        return sqlite_checkpointer(checkpoint_path(self.settings))

    def _run(self, saver: Any, run_id: str, record: dict[str, Any]) -> KbUpdateRun:
        change = PriceChange.parse(
            record["old"], record["new"], label=record.get("label") or "base plan",
            effective_date=record.get("effective_date"), existing_customers=record.get("existing_customers"),
            linked_prices_follow=bool(record.get("linked_prices_follow")))
        job = PriceChangeJob(change)
        parts = (self.components or (lambda j: components_for(j, self.settings)))(job)
        return KbUpdateRun(parts, self.kb_dir, saver, self.config or EngineConfig(), thread_id=run_id,
                           job_record=change.to_dict())

    def _pending(self, saver: Any) -> tuple[Any, Any]:
        latest, _next = chat_runs(saver, self.thread_id)
        record = saved_job(saver, latest) if latest else None
        if not record:
            return None, None
        run = self._run(saver, latest, record)
        return run, run.pending()

    async def _start_job(self, old: str, new: str, label: str, effective_date: str | None
                         ) -> AsyncIterator[ChatEvent]:
        try:
            change = PriceChange.parse(old, new, label=label, effective_date=effective_date)
        except ValueError as exc:
            yield MessageEvent(t("stopped", self.language, error=exc))
            return
        warnings = "".join(f"\n\n⚠️ {w}" for w in change.warnings())
        yield MessageEvent(t("start", self.language, summary=summary(PriceChangeJob(change), self.language))
                           + warnings)
        with self._saver() as saver:
            _latest, run_id = await asyncio.to_thread(chat_runs, saver, self.thread_id)
            run = self._run(saver, run_id, change.to_dict())
            async for event in self._advance(run, lambda: run.stream(None)):
                yield event

    async def _advance(self, run: Any, start: Callable[[], Iterator[Any]]) -> AsyncIterator[ChatEvent]:
        """Run until the next question or the end; progress goes to one collapsed work log."""
        lines: list[str] = []
        published: list[str] = []  # the publish step's lines, shown as they come
        last: dict[str, int] = {}  # unit → index of its latest line
        waiting = finished = None
        try:
            async for event in in_thread(start):
                if isinstance(event, SplitDone):
                    yield MessageEvent(t("found", self.language, articles=len(event.units), ignored=event.discarded)
                                       if event.units else t("found_none", self.language))
                elif isinstance(event, UnitChecked):
                    last[event.attempt["unit_id"]] = len(lines)
                    lines.append(self._log_line(event.attempt))
                elif isinstance(event, RoundDone):
                    for uid, reason in event.escalated.items():
                        if uid in last:
                            lines[last[uid]] = self._escalated_line(uid, reason)
                elif isinstance(event, PublishProgress):
                    yield self._publish_progress(event, published)
                elif isinstance(event, ApprovalNeeded):
                    waiting = event
                elif isinstance(event, Finished):
                    finished = event
        except StaleApproval:
            yield StaleChoiceEvent()
            return
        except Exception as exc:  # noqa: BLE001 - runaway run, split coverage, model errors: say it plainly
            if lines:
                yield StepEvent(LOG_STEP, t("log", self.language), bullets(lines), status="failed")
            yield MessageEvent(t("stopped", self.language, error=exc))
            return
        if lines:
            yield StepEvent(LOG_STEP, t("log", self.language), bullets(lines), status="done")
        if published and not self._indexed:  # no search index to refresh: the writes close the step
            yield StepEvent(PUBLISH_STEP, t("progress", self.language), bullets(published), status="done", open=True)
        if waiting is not None:
            yield self._ask(run, waiting)
        elif finished is not None:
            yield MessageEvent(self._finished(finished, run))

    def _publish_progress(self, event: PublishProgress, lines: list[str]) -> StepEvent:
        lang = self.language
        if event.stage == "written":
            lines.append(t("progress_written", lang, path=f"`{event.path}`"))
        elif event.stage == "reindex-start":
            lines.append(t("progress_index", lang, n=event.total))
        else:
            lines[-1:] = [t("progress_index_failed" if event.failed else "progress_indexed", lang)]
        self._indexed = event.stage == "reindex-done"
        return StepEvent(PUBLISH_STEP, t("progress", lang), bullets(lines),
                         status="done" if self._indexed else "running", open=True)

    def _log_line(self, attempt: dict[str, Any]) -> str:
        path = f"`{attempt['unit_id']}`"
        if not attempt["failures"]:
            return t("log_pass", self.language, path=path)
        tags = [tag_of(f) for f in attempt["failures"]]
        return t("log_retry", self.language, path=path, n=attempt["attempt"], why=wording.why(tags, self.language))

    def _escalated_line(self, uid: str, reason: str) -> str:
        tags = re.findall(r"\[([\w-]+)\]", reason)
        key = "log_person" if reason.startswith("needs a person") else "log_stuck"
        return t(key, self.language, path=f"`{uid}`", why=wording.why(tags or ["other"], self.language))

    # --- questions -------------------------------------------------------------------------
    def _ask(self, run: Any, pending: Any) -> InterruptEvent:
        payload, lang = pending.payload, self.language
        if pending.kind == "lesson":
            lesson = payload["lesson"]
            text = t("lesson", lang, paths=", ".join(f"`{u}`" for u in lesson["units"]),
                     text=wording.lesson_text(lesson, lang))
            choices = [(t("lesson_yes", lang), "yes"), (t("lesson_no", lang), "no")]
        elif pending.kind == "decision":
            item = payload["item"]
            text, choices = wording.decision_prompt(item, payload["index"], payload["total"], payload["open"],
                                                    run.parts.job.old.raw, lang)
        else:
            review = payload["review"]
            body = wording.review_markdown(review, {p: tuple(v) for p, v in review.get("texts", {}).items()},
                                           summary(run.parts.job, lang), lang)
            text = body + "\n\n" + t("publish_q", lang, n=len(review.get("publishable", [])))
            choices = [(t("publish", lang), "yes"), (t("dont", lang), "no")]
        return InterruptEvent(text, [Choice(label, value) for label, value in choices], kind=PROMPT_KIND,
                              interrupt_id=pending.interrupt_id)

    def _finished(self, event: Finished, run: Any) -> str:
        lang = self.language
        if event.outcome == "rejected":
            return t("rejected", lang)
        published = event.published or {}
        if event.outcome != "published":
            return t("nothing", lang)
        lines = [t("published", lang, n=len(published.get("written", [])),
                   paths=", ".join(f"`{p}`" for p in published.get("written", [])) or "—")]
        if published.get("conflicts"):
            lines.append(t("conflicts", lang, paths=", ".join(f"`{p}`" for p in published["conflicts"])))
        reingest = published.get("reingest")
        if isinstance(reingest, dict):
            lines.append(t("reindex_failed", lang, error=reingest["error"]) if reingest.get("error")
                         else t("reindexed", lang))
        review = run.values().get("review", {})
        kept = [f"`{i['current']}`" for i in review.get("kept", []) if i["kind"] != "article"]
        if kept or review.get("left"):
            lines.append(t("kept_final", lang, items=", ".join(kept + [f"`{p}`" for p in review.get("left", [])])))
        broken = wording.broken_lines(review, lang)
        if broken:
            lines.append(t("broken_final", lang, items=" ".join(broken)))
        return "\n\n".join(lines)


def summary(job: Any, language: str) -> str:
    """The change in one sentence, in the reader's language."""
    if wording.lang_of(language) == "fr":
        return f"Le prix passe de {job.old.raw} à {job.new.raw}."
    return str(job.summary())


def bullets(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


def button_answer(kind: str, value: str) -> Any:
    """What a button resumes the run with: a decision, or yes/no."""
    if kind == "decision":
        if value == "all":
            return {"choice": "computed", "all": True}
        return {"choice": value}
    return value == "yes"


async def in_thread(start: Callable[[], Iterator[Any]]) -> AsyncIterator[Any]:
    """A sync event stream advanced in a worker thread, so the UI stays live."""
    stream = await asyncio.to_thread(start)
    done = object()
    while True:
        event = await asyncio.to_thread(next, stream, done)
        if event is done:
            return
        yield event
