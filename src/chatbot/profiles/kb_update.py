"""The "Knowledge update" chat profile: state a change, decide what needs a person, approve, publish.

A thin adapter over `kb_update` (which knows nothing of Chainlit). The run's LangGraph checkpoint,
keyed by the Chainlit thread id (`<thread id>:<n>` per job), is the source of truth for what the
run waits on: a lesson, an item left for a person, or the final publish. Every question is a
message with buttons carrying the interrupt id; it comes back whenever the thread is shown again
(reload, sidebar, restart, another instance). A click or a typed reply ("publish", "oui",
"rejeter", "36") answers the pending question once: the checkpoint's pending id must match and
the run claims it in the checkpoint file, so a second click or a stale button is refused.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import chainlit as cl
from chainlit.utils import utc_now

from chatbot.profiles import kb_update_texts as texts
from chatbot.profiles.kb_update_texts import t

AUTHOR = "Knowledge update"
PROFILE = "Knowledge update"


class Surface(Protocol):
    """What the conversation needs from a chat UI (Chainlit here, a fake in tests)."""

    async def say(self, text: str) -> None: ...

    async def work_log(self, title: str, lines: list[str], failed: bool) -> None:
        """One collapsed step with the run's progress lines (an error only if the job failed)."""
        ...

    async def prompt(self, interrupt_id: str, text: str, choices: list[tuple[str, str]]) -> None:
        """A question with buttons (label, value); it replaces the previous live question."""
        ...

    async def answered(self, text: str | None) -> None:
        """The live question was answered: its buttons go; `text` is the click shown as the user's."""
        ...

    async def progress(self, title: str, lines: list[str], done: bool) -> None:
        """A step shown at once and updated as the work goes on (publishing, one line per article)."""
        ...

    async def stale(self) -> None:
        """A short note: that question was already answered; nothing was sent."""
        ...


class KbUpdateConversation:
    """One chat thread's knowledge updates, read from and resumed through the checkpoint."""

    def __init__(self, surface: Surface, thread_id: str, language: str = "en", settings: Any = None,
                 components: Callable[[Any], Any] | None = None, config: Any = None) -> None:
        from relais.settings import get_settings

        self.surface, self.thread_id, self.language = surface, thread_id, texts.lang_of(language)
        self.settings = settings or get_settings()
        self.components = components
        self.config = config
        self._indexed = False  # the publish step was closed by the search index being refreshed

    @property
    def kb_dir(self) -> Path:
        return Path(self.settings.relais_kb_dir).expanduser().resolve()

    # --- entry points ----------------------------------------------------------------------
    async def show_pending(self) -> bool:
        """Show the question the thread's latest run waits on (after a reload or a resume)."""
        with self._saver() as saver:
            run, pending = await asyncio.to_thread(self._pending, saver)
            if pending is None:
                return False
            await self._ask(run, pending)
            return True

    async def handle(self, text: str) -> None:
        """A typed message: the answer to the pending question, else a new change."""
        from kb_update.request import parse_change_request

        with self._saver() as saver:
            run, pending = await asyncio.to_thread(self._pending, saver)
            if pending is not None:
                answer = self._typed_answer(pending, text)
                if answer is None:
                    busy = parse_change_request(text) is not None
                    await self.surface.say(t("busy" if busy else "waiting", self.language))
                    await self._ask(run, pending)
                    return
                if answer == "type":
                    return
                await self.surface.answered(None)
                await self._advance(run, lambda: run.answer(answer, pending.interrupt_id))
                return
        request = parse_change_request(text)
        if request is None:
            await self.surface.say(t("how_to", self.language))
            return
        await self._start_job({"old": request.old, "new": request.new, "label": request.label,
                               "effective_date": request.effective_date})

    async def choose(self, value: str, interrupt_id: str | None, label: str) -> None:
        """A button: answers its question only if it is still the pending one (once)."""
        with self._saver() as saver:
            run, pending = await asyncio.to_thread(self._pending, saver)
            if pending is None or (interrupt_id and pending.interrupt_id != interrupt_id):
                await self.surface.stale()
                return
            if value == "type":  # the click is said, its buttons go; the typed amount answers the question
                item = pending.payload.get("item", {})
                example = item.get("computed") or ""
                await self.surface.answered(label)
                await self.surface.say(t("type_hint", self.language, current=f"`{item.get('current', '')}`",
                                         example=example))
                return
            answer = _button_answer(pending.kind, value)
            await self.surface.answered(label)
            await self._advance(run, lambda: run.answer(answer, pending.interrupt_id))

    # --- runs ------------------------------------------------------------------------------
    def _saver(self) -> Any:
        from kb_update.runner import checkpoint_path, sqlite_checkpointer

        return sqlite_checkpointer(checkpoint_path(self.settings))

    def _run(self, saver: Any, run_id: str, record: dict[str, Any]) -> Any:
        from kb_update.factory import components_for
        from kb_update.graph import EngineConfig
        from kb_update.price_job import PriceChange, PriceChangeJob
        from kb_update.runner import KbUpdateRun

        change = PriceChange.parse(
            record["old"], record["new"], label=record.get("label") or "base plan",
            effective_date=record.get("effective_date"), existing_customers=record.get("existing_customers"),
            linked_prices_follow=bool(record.get("linked_prices_follow")))
        job = PriceChangeJob(change)
        parts = (self.components or (lambda j: components_for(j, self.settings)))(job)
        return KbUpdateRun(parts, self.kb_dir, saver, self.config or EngineConfig(), thread_id=run_id,
                           job_record=change.to_dict())

    def _pending(self, saver: Any) -> tuple[Any, Any]:
        from kb_update.runner import chat_runs, saved_job

        latest, _next = chat_runs(saver, self.thread_id)
        record = saved_job(saver, latest) if latest else None
        if not record:
            return None, None
        run = self._run(saver, latest, record)
        return run, run.pending()

    async def _start_job(self, request: dict[str, Any]) -> None:
        from kb_update.price_job import PriceChange, PriceChangeJob
        from kb_update.runner import chat_runs

        try:
            change = PriceChange.parse(request["old"], request["new"], label=request["label"],
                                       effective_date=request["effective_date"])
        except ValueError as exc:
            await self.surface.say(t("stopped", self.language, error=exc))
            return
        warnings = "".join(f"\n\n⚠️ {w}" for w in change.warnings())
        await self.surface.say(t("start", self.language, summary=_summary(PriceChangeJob(change), self.language))
                               + warnings)
        with self._saver() as saver:
            _latest, run_id = await asyncio.to_thread(chat_runs, saver, self.thread_id)
            run = self._run(saver, run_id, change.to_dict())
            await self._advance(run, lambda: run.stream(None))

    async def _advance(self, run: Any, start: Callable[[], Iterator[Any]]) -> None:
        """Run until the next question or the end; progress goes to one collapsed work log."""
        from kb_update.runner import (
            ApprovalNeeded,
            Finished,
            PublishProgress,
            RoundDone,
            SplitDone,
            StaleApproval,
            UnitChecked,
        )

        lines: list[str] = []
        published: list[str] = []  # the publish step's lines, shown as they come
        last: dict[str, int] = {}  # unit → index of its latest line
        waiting = finished = None
        try:
            async for event in _in_thread(start):
                if isinstance(event, SplitDone):
                    await self.surface.say(t("found", self.language, articles=len(event.units),
                                             ignored=event.discarded) if event.units else
                                           t("found_none", self.language))
                elif isinstance(event, UnitChecked):
                    last[event.attempt["unit_id"]] = len(lines)
                    lines.append(self._log_line(event.attempt))
                elif isinstance(event, RoundDone):
                    for uid, reason in event.escalated.items():
                        if uid in last:
                            lines[last[uid]] = self._escalated_line(uid, reason)
                elif isinstance(event, PublishProgress):
                    await self._publish_progress(event, published)
                elif isinstance(event, ApprovalNeeded):
                    waiting = event
                elif isinstance(event, Finished):
                    finished = event
        except StaleApproval:
            await self.surface.stale()
            return
        except Exception as exc:  # noqa: BLE001 - runaway run, split coverage, model errors: say it plainly
            if lines:
                await self.surface.work_log(t("log", self.language), lines, failed=True)
            await self.surface.say(t("stopped", self.language, error=exc))
            return
        if lines:
            await self.surface.work_log(t("log", self.language), lines, failed=False)
        if published and not self._indexed:  # no search index to refresh: the writes close the step
            await self.surface.progress(t("progress", self.language), published, done=True)
        if waiting is not None:
            await self._ask(run, waiting)
        elif finished is not None:
            await self.surface.say(self._finished(finished, run))

    async def _publish_progress(self, event: Any, lines: list[str]) -> None:
        lang = self.language
        if event.stage == "written":
            lines.append(t("progress_written", lang, path=f"`{event.path}`"))
        elif event.stage == "reindex-start":
            lines.append(t("progress_index", lang, n=event.total))
        else:
            lines[-1:] = [t("progress_index_failed" if event.failed else "progress_indexed", lang)]
        self._indexed = event.stage == "reindex-done"
        await self.surface.progress(t("progress", lang), lines, done=self._indexed)

    def _log_line(self, attempt: dict[str, Any]) -> str:
        from kb_update.failures import tag_of

        path = f"`{attempt['unit_id']}`"
        if not attempt["failures"]:
            return t("log_pass", self.language, path=path)
        tags = ["judge" if tag_of(f) == "judge" else tag_of(f) for f in attempt["failures"]]
        return t("log_retry", self.language, path=path, n=attempt["attempt"], why=texts.why(tags, self.language))

    def _escalated_line(self, uid: str, reason: str) -> str:
        import re

        tags = re.findall(r"\[([\w-]+)\]", reason)
        key = "log_person" if reason.startswith("needs a person") else "log_stuck"
        return t(key, self.language, path=f"`{uid}`", why=texts.why(tags or ["other"], self.language))

    # --- questions -------------------------------------------------------------------------
    async def _ask(self, run: Any, pending: Any) -> None:
        payload, lang = pending.payload, self.language
        if pending.kind == "lesson":
            lesson = payload["lesson"]
            text = t("lesson", lang, paths=", ".join(f"`{u}`" for u in lesson["units"]),
                     text=texts.lesson_text(lesson, lang))
            choices = [(t("lesson_yes", lang), "yes"), (t("lesson_no", lang), "no")]
        elif pending.kind == "decision":
            item = payload["item"]
            text, choices = texts.decision_prompt(item, payload["index"], payload["total"], payload["open"],
                                                  run.parts.job.old.raw, lang)
        else:
            review = payload["review"]
            body = texts.review_markdown(review, {p: tuple(v) for p, v in review.get("texts", {}).items()},
                                         _summary(run.parts.job, lang), lang)
            text = body + "\n\n" + t("publish_q", lang, n=len(review.get("publishable", [])))
            choices = [(t("publish", lang), "yes"), (t("dont", lang), "no")]
        await self.surface.prompt(pending.interrupt_id, text, choices)

    def _typed_answer(self, pending: Any, text: str) -> Any:
        if pending.kind == "decision":
            return texts.decision_reply(text)
        return texts.yes_no(text)

    def _finished(self, event: Any, run: Any) -> str:
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
        broken = texts.broken_lines(review, lang)
        if broken:
            lines.append(t("broken_final", lang, items=" ".join(broken)))
        return "\n\n".join(lines)


def _summary(job: Any, language: str) -> str:
    if texts.lang_of(language) == "fr":
        return f"Le prix passe de {job.old.raw} à {job.new.raw}."
    return job.summary()


def _button_answer(kind: str, value: str) -> Any:
    if kind == "decision":
        if value == "all":
            return {"choice": "computed", "all": True}
        return {"choice": value}
    return value == "yes"


async def _in_thread(start: Callable[[], Iterator[Any]]) -> AsyncIterator[Any]:
    """A sync event stream advanced in a worker thread, so the UI stays live."""
    stream = await asyncio.to_thread(start)
    done = object()
    while True:
        event = await asyncio.to_thread(next, stream, done)
        if event is done:
            return
        yield event


# --- Chainlit glue ------------------------------------------------------------------------
class ChainlitSurface:
    """Messages, one collapsed work-log step, and questions with buttons (chatbot.ui.pending)."""

    def __init__(self, language: str, steps: list[dict[str, Any]] | None = None) -> None:
        self.language, self.steps = language, steps

    async def say(self, text: str) -> None:
        await cl.Message(content=text, author=AUTHOR).send()

    async def work_log(self, title: str, lines: list[str], failed: bool) -> None:
        async with cl.Step(name=title, type="tool", default_open=False, show_input=False) as step:
            step.output = "\n".join(f"- {line}" for line in lines)
            step.is_error = failed

    async def progress(self, title: str, lines: list[str], done: bool) -> None:
        """One step, open while it runs, its lines updated in place (stored once it is done)."""
        step = getattr(self, "_progress", None)
        if step is None:
            step = self._progress = cl.Step(name=title, type="tool", default_open=True, show_input=False)
            step.start = utc_now()
            step.output = "\n".join(f"- {line}" for line in lines)
            await step.send()
        else:
            step.output = "\n".join(f"- {line}" for line in lines)
            if done:
                step.end = utc_now()
            await step.update()
        if done:
            self._progress = None

    async def prompt(self, interrupt_id: str, text: str, choices: list[tuple[str, str]]) -> None:
        from chatbot.ui.pending import Choice, PendingPrompt, send_pending_prompt

        await send_pending_prompt(
            PendingPrompt(interrupt_id, text, [Choice(label, value) for label, value in choices], author=AUTHOR,
                          language=self.language, kind="kb_update"),
            self.steps, persist=self.steps is None)
        self.steps = None  # re-attached once; later questions are new messages

    async def answered(self, text: str | None) -> None:
        from chatbot.profiles._turn import echo_choice
        from chatbot.ui.pending import clear_live_prompt

        await clear_live_prompt()
        if text:
            await echo_choice(text)

    async def stale(self) -> None:
        from chatbot.ui.pending import refuse_stale

        await refuse_stale(self.language, author=AUTHOR)


def _language() -> str:
    return texts.lang_of(cl.user_session.get("languages") or "")


def _conversation(steps: list[dict[str, Any]] | None = None) -> KbUpdateConversation:
    language = _language()
    return KbUpdateConversation(ChainlitSurface(language, steps), cl.context.session.thread_id, language)


async def _remember_profile() -> None:
    """The thread reopens in this profile even after a crash (Chainlit saves the session at disconnect)."""
    from chainlit.data import get_data_layer

    layer = get_data_layer()
    if layer is not None:
        try:
            await layer.update_thread(cl.context.session.thread_id, metadata={"chat_profile": PROFILE})
        except Exception:  # noqa: BLE001 - only the resume profile depends on it: said, not raised
            logging.getLogger(__name__).warning("could not remember the profile of thread %s",
                                                cl.context.session.thread_id, exc_info=True)


async def on_chat_start() -> None:
    """Nothing to send: the profile's welcome and starter are on the empty chat (profiles/catalog.py)."""


async def on_chat_resume(thread: dict[str, Any]) -> None:
    from chatbot.ui.pending import schedule_after_resume

    conversation = _conversation(list(thread.get("steps") or []))
    schedule_after_resume(conversation.show_pending)


async def on_message(message: cl.Message) -> None:
    from chatbot.ui.pending import thread_lock

    await _remember_profile()
    async with thread_lock(cl.context.session.thread_id):
        await _conversation().handle(message.content)


async def on_choice(action: cl.Action) -> None:
    from chatbot.ui.pending import clicked_interrupt_id, is_live, refuse_stale, thread_lock

    async with thread_lock(cl.context.session.thread_id):
        if not is_live(action):
            await refuse_stale(_language(), author=AUTHOR)
            return
        value = str((action.payload or {}).get("value", ""))
        await _conversation().choose(value, clicked_interrupt_id(action), action.label)
        if value != "type":
            try:
                await action.remove()  # the clicked button goes even if the page holds a second copy of it
            except Exception:  # noqa: BLE001 - a closed page must not fail the answer
                pass
