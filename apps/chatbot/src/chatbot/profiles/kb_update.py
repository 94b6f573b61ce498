"""The "Knowledge update" chat profile: state a change, watch the units, approve, publish.

A thin adapter over `kb_update` (which knows nothing of Chainlit): each unit attempt is a
`cl.Step` showing its gate results; lesson approvals and the one publish approval are
`cl.AskActionMessage` buttons; the review shows a diff per article in code blocks.

An approval that times out is "not approved yet": nothing is written, the run stays paused
in its SQLite checkpoint, and the user can answer later by typing "approve" or "reject".
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Protocol

import chainlit as cl
from kb_update.request import parse_change_request

ASK_TIMEOUT_S = 300
AUTHOR = "Knowledge update"
_PENDING = "kb_update_pending"  # user-session key: the paused run waiting for an answer
_BRIEFS = "kb_update_briefs"  # user-session key: unit briefs of the current run (step inputs)
_YES = {"approve", "approved", "yes", "y", "ok", "publish", "oui", "valider", "publier"}
_NO = {"reject", "rejected", "no", "n", "non", "refuser", "cancel", "annuler"}

HOW_TO = (
    "Tell me the change in one sentence, for example: *The base plan moves from $10/month to $12/month* "
    "(or *Le forfait Base passe de 10 $/mois à 12 $/mois*). I search every article, update the ones that "
    "state the price in parallel, check each one, and show you one review: nothing is written until you "
    "approve it."
)


class Surface(Protocol):
    """What the conversation needs from a chat UI (Chainlit here, a fake in tests)."""

    async def say(self, text: str) -> None: ...

    async def open_step(self, key: str, name: str, brief: str) -> None: ...

    async def close_step(self, key: str, output: str, passed: bool) -> None: ...

    async def ask(self, text: str, approve: str, reject: str) -> bool | None:
        """True / False, or None when the question timed out."""
        ...


class Session(Protocol):
    def get(self, key: str, default: Any = None) -> Any: ...

    def set(self, key: str, value: Any) -> None: ...


class ChainlitSurface:
    """Messages, steps and action buttons in the Chainlit UI."""

    def __init__(self, timeout_s: int = ASK_TIMEOUT_S) -> None:
        self.timeout_s = timeout_s
        self.steps: dict[str, cl.Step] = {}

    async def say(self, text: str) -> None:
        await cl.Message(content=text, author=AUTHOR).send()

    async def open_step(self, key: str, name: str, brief: str) -> None:
        step = cl.Step(name=name, type="tool", show_input=True)
        step.input = brief
        await step.send()
        self.steps[key] = step

    async def close_step(self, key: str, output: str, passed: bool) -> None:
        step = self.steps.pop(key, None)
        if step is None:
            return
        step.output = output
        step.is_error = not passed
        await step.update()

    async def ask(self, text: str, approve: str, reject: str) -> bool | None:
        answer = await cl.AskActionMessage(
            content=text,
            actions=[cl.Action(name="kb_update_approve", payload={"value": "approve"}, label=approve),
                     cl.Action(name="kb_update_reject", payload={"value": "reject"}, label=reject)],
            author=AUTHOR, timeout=self.timeout_s,
        ).send()
        if answer is None:
            return None
        return (answer.get("payload") or {}).get("value") == "approve"


def _gate_report(attempt: dict[str, Any]) -> str:
    lines = []
    for name, failures in attempt["gates"].items():
        lines.append(f"{'✅' if not failures else '❌'} {name}")
        lines += [f"  - {message}" for message in failures]
    lines += [f"⏭️ {name} (skipped while code gates fail)" for name in attempt.get("skipped", [])]
    if attempt["error"] and not attempt["gates"]:
        lines.append(f"❌ worker error: {attempt['error']}")
    return "\n".join(lines) or "no gate ran"


def _yes_no(text: str) -> bool | None:
    word = text.strip().lower().strip(".! ")
    return True if word in _YES else False if word in _NO else None


class KbUpdateConversation:
    """One user's knowledge-update conversation (session state in `session`)."""

    def __init__(self, surface: Surface, session: Session, settings: Any = None,
                 components: Callable[[Any], Any] | None = None, config: Any = None) -> None:
        from relais.settings import get_settings

        self.surface, self.session = surface, session
        self.settings = settings or get_settings()
        self.components = components
        self.config = config

    @property
    def kb_dir(self) -> Path:
        return Path(self.settings.relais_kb_dir).expanduser().resolve()

    async def start(self) -> None:
        from relais.models import engine_info

        engine = engine_info(self.settings).label
        note = " Offline: rules, a deterministic worker and a code stand-in for the judge." if engine == "offline" else ""
        await self.surface.say(f"**Knowledge update** — knowledge base `{self.kb_dir}`, engine `{engine}`.{note}\n\n{HOW_TO}")

    async def handle(self, text: str) -> None:
        pending = self.session.get(_PENDING)
        if pending:
            answer = _yes_no(text)
            if answer is None:
                await self.surface.say(
                    f"A run is waiting for your decision on its {pending['kind']}. Reply **approve** or **reject** "
                    "(nothing has been written).")
                return
            self.session.set(_PENDING, None)
            await self._run(pending["request"], pending["thread_id"], answer)
            return
        request = parse_change_request(text)
        if request is None:
            await self.surface.say(HOW_TO)
            return
        await self._run({"old": request.old, "new": request.new, "label": request.label,
                         "effective_date": request.effective_date}, None, None)

    async def _run(self, request: dict[str, Any], thread_id: str | None, answer: bool | None) -> None:
        from kb_update.factory import components_for
        from kb_update.graph import EngineConfig
        from kb_update.price_job import PriceChange, PriceChangeJob
        from kb_update.runner import (
            ApprovalNeeded,
            Finished,
            KbUpdateRun,
            checkpoint_path,
            sqlite_checkpointer,
        )

        try:
            change = PriceChange.parse(request["old"], request["new"], label=request["label"],
                                       effective_date=request["effective_date"])
        except ValueError as exc:
            await self.surface.say(f"I could not use that change: {exc}")
            return
        job = PriceChangeJob(change)
        parts = (self.components or (lambda j: components_for(j, self.settings)))(job)
        with sqlite_checkpointer(checkpoint_path(self.settings)) as saver:
            extra = {"thread_id": thread_id} if thread_id else {}
            run = KbUpdateRun(parts, self.kb_dir, saver, self.config or EngineConfig(),
                              job_record=change.to_dict(), **extra)
            if thread_id is None:
                notes = "".join(f"\n\n⚠️ {warning}" for warning in change.warnings())
                await self.surface.say(f"{job.summary()} Searching `{self.kb_dir}`…{notes}")
            while True:
                waiting: ApprovalNeeded | None = None
                try:
                    async for event in self._events(run, answer):
                        if isinstance(event, ApprovalNeeded):
                            waiting = event
                        elif isinstance(event, Finished):
                            await self._finished(event)
                            return
                        else:
                            await self._progress(event)
                except Exception as exc:  # noqa: BLE001 - runaway run, split coverage, model errors: say it plainly
                    await self.surface.say(f"The update stopped: {exc}. Nothing was published.")
                    return
                if waiting is None:
                    return
                answer = await self._ask(waiting)
                if answer is None:
                    self.session.set(_PENDING, {"thread_id": run.thread_id, "request": request,
                                                "kind": "lesson" if waiting.kind == "lesson" else "publish approval"})
                    await self.surface.say(
                        "Not approved yet (no answer in time) — nothing was written. The run is paused: reply "
                        "**approve** or **reject** when you are ready.")
                    return

    async def _events(self, run: Any, answer: bool | None) -> AsyncIterator[Any]:
        """The run's sync event stream, advanced in a worker thread so the UI stays live."""
        stream = run.stream(answer)
        done = object()
        while True:
            event = await asyncio.to_thread(next, stream, done)
            if event is done:
                return
            yield event

    async def _progress(self, event: Any) -> None:
        from kb_update.runner import RoundDone, SplitDone, UnitChecked, UnitStarted

        if isinstance(event, SplitDone):
            self.session.set(_BRIEFS, dict(event.briefs))
            await self.surface.say(
                f"Found {event.hits} mention(s) in the knowledge base → {len(event.units)} article(s) to update; "
                f"{event.discarded} left unchanged with a reason (splitter: {event.engine}).")
        elif isinstance(event, UnitStarted):
            brief = (self.session.get(_BRIEFS) or {}).get(event.unit, "")
            await self.surface.open_step(f"{event.unit}#{event.attempt}", f"{event.unit} · attempt {event.attempt}", brief)
        elif isinstance(event, UnitChecked):
            attempt = event.attempt
            await self.surface.close_step(f"{attempt['unit_id']}#{attempt['attempt']}", _gate_report(attempt),
                                          event.passed)
        elif isinstance(event, RoundDone):
            retry = [uid for uid, status in event.status.items() if status == "retry"]
            lines = []
            if retry:
                lines.append(f"Retrying only {', '.join(f'`{u}`' for u in retry)}, each with its own gate output.")
            lines += [f"⚠️ `{uid}` escalated to a person: {why}" for uid, why in event.escalated.items()]
            if lines:
                await self.surface.say("\n\n".join(lines))

    async def _ask(self, approval: Any) -> bool | None:
        if approval.kind == "lesson":
            lesson = approval.payload["lesson"]
            evidence = "\n".join(f"- `{uid}`: {messages[0]}" for uid, messages in approval.payload["evidence"].items()
                                 if messages)
            return await self.surface.ask(
                f"**Lesson proposed** ({len(lesson['units'])} units failed `[{lesson['tag']}]`):\n\n"
                f"> {lesson['text']}\n\n{evidence}\n\nAdd it to the brief of every unit not yet done?",
                "Add to the brief", "Reject")
        await self.surface.say(approval.payload.get("markdown", ""))
        return await self.surface.ask(approval.prompt or "Publish?", "Publish", "Reject")

    async def _finished(self, event: Any) -> None:
        s = event.stats
        lines = [(f"**{event.outcome}** — {s.get('units', 0)} units, {s.get('worker_calls', 0)} worker calls "
                  f"({s.get('retries', 0)} retries), {s.get('corrected', 0)} corrected, {s.get('escalated', 0)} "
                  f"escalated, {s.get('lessons_approved', 0)} lesson(s), {s.get('seconds', 0):.1f} s.")]
        published = event.published or {}
        if event.outcome == "rejected":
            lines.append("Not approved: nothing was written.")
        if published.get("written"):
            lines.append("Written: " + ", ".join(f"`{p}`" for p in published["written"]))
        if published.get("conflicts"):
            lines.append("Changed on disk meanwhile, not overwritten: " + ", ".join(published["conflicts"]))
        if published.get("not_published"):
            lines.append("Left for a person: " + ", ".join(f"`{p}`" for p in published["not_published"]))
        reingest = published.get("reingest")
        if isinstance(reingest, dict):
            lines.append("Re-index: " + str(reingest.get("error") or reingest.get("summary") or "done"))
        await self.surface.say("\n\n".join(lines))


def _conversation() -> KbUpdateConversation:
    surface = cl.user_session.get("kb_update_surface")
    if surface is None:
        surface = ChainlitSurface()
        cl.user_session.set("kb_update_surface", surface)
    return KbUpdateConversation(surface, cl.user_session)


async def on_chat_start() -> None:
    await _conversation().start()


async def on_message(message: cl.Message) -> None:
    await _conversation().handle(message.content)
