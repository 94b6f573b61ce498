"""Pending prompts that survive a person: rebuilt from the graph's checkpoint, one click one resume.

The graph's pending interrupt is the source of truth, never the browser: whenever a thread is
shown again (reload, sidebar, restart, another instance) the profile reads what its checkpoint
still waits for and calls `send_pending_prompt` after Chainlit has re-emitted the thread.

API (used by the Coach / Assistant profiles and the Knowledge-update profile):

- `PendingPrompt(interrupt_id, prompt, choices, author="Relais", action=CHOICE_ACTION,
  language="en", kind="constraints")` — what is waiting; `choices` are labels (`str`) or
  `Choice(label, value)`. Every button's payload is `{"value": ..., "interrupt_id": ...}`.
- `await send_pending_prompt(prompt, steps=None, persist=True) -> str` — show the prompt with its
  buttons and make it the session's live prompt (the previous live prompt loses its buttons).
  With `steps` (a resumed thread's stored steps) the buttons are put back under the stored
  message of the same interrupt id (no second copy of the text); without a stored message a
  new one is sent (`persist=False`: not written to the chat database, so reloads never pile up
  copies). The prompt message's metadata carries `interrupt_id` and its `button_ids`; with
  `steps`, the buttons of the thread's answered prompts are taken off the page. Returns the message id.
- `schedule_after_resume(callback)` — call from `on_chat_resume`: `await callback()` runs right
  after Chainlit has emitted the resumed thread (which would otherwise wipe anything sent from
  the hook, Chainlit #2611), deterministically: the session's emitter is wrapped once.
- `begin_turn()` — call when a message or click starts a turn: a restore scheduled before it is
  dropped (that turn shows its own prompt).
- `await clear_live_prompt()` — the live prompt was answered (click or typed reply): remove its
  buttons from the page.
- `thread_lock(thread_id)` — one resume at a time per thread in this process.
- `clicked_interrupt_id(action)` — the interrupt id a button was made for (None: unknown).
- `is_live(action)` — the button may still answer its prompt (same interrupt id as the session's
  live prompt, or no live prompt here yet: a click racing a reload); check it inside
  `thread_lock`, then always compare the id with the checkpoint's pending one.
- `live_language()` — the live prompt's language (for the stale note).
- `await refuse_stale(language)` — the short localised note for a second or stale click.
- `refusals()` — how many clicks this session had refused (compare before and after a handler).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import chainlit as cl

from assistant import i18n
from chatbot.chainlit_fixes.data_layer import parse_metadata
from relais.events import Choice

logger = logging.getLogger(__name__)

CHOICE_ACTION = "agent_choice"
INTERRUPT_KEY = "interrupt_id"  # in button payloads and in the prompt message's metadata
BUTTONS_KEY = "button_ids"  # in the prompt message's metadata: the ids of the buttons it was shown with
_FALLBACK_DELAY_S = 5.0  # only if a future Chainlit no longer calls emitter.resume_thread


@dataclass(frozen=True)
class PendingPrompt:
    """A question a graph is waiting on, keyed by its interrupt id (LangGraph's `Interrupt.id`)."""

    interrupt_id: str | None
    prompt: str
    choices: Sequence[str | Choice] = field(default_factory=tuple)
    author: str = "Relais"
    action: str = CHOICE_ACTION
    language: str = "en"
    kind: str = "constraints"

    def buttons(self) -> list[cl.Action]:
        """The prompt's buttons; with an interrupt id their ids are derived from it, so whichever
        process or session shows this prompt again sends the same ids and can replace, not add."""
        out = []
        for index, item in enumerate(self.choices):
            choice = item if isinstance(item, Choice) else Choice(str(item))
            action = cl.Action(
                name=self.action,
                payload={"value": choice.answer, INTERRUPT_KEY: self.interrupt_id},
                label=choice.label,
            )
            if self.interrupt_id:
                action.id = str(uuid.uuid5(_BUTTON_IDS, f"{self.interrupt_id}/{index}/{choice.label}"))
            out.append(action)
        return out


_BUTTON_IDS = uuid.UUID("5f0c5b8e-0d2c-4f0e-9a47-2f3b8a1c6d10")  # namespace of prompt button ids


def _metadata(step: dict[str, Any]) -> dict[str, Any]:
    return parse_metadata(step.get("metadata"))


def stored_button_ids(steps: Sequence[dict[str, Any]] | None) -> list[str]:
    """The ids of every button the thread's stored prompts were shown with (answered or not)."""
    ids: list[str] = []
    for step in steps or ():
        buttons = _metadata(step).get(BUTTONS_KEY)
        if isinstance(buttons, list):
            ids.extend(str(button) for button in buttons)
    return ids


def stored_prompt_id(steps: Sequence[dict[str, Any]] | None, interrupt_id: str | None) -> str | None:
    """The id of the stored message that showed this interrupt, if the thread kept it."""
    if not steps or not interrupt_id:
        return None
    for step in steps:
        if _metadata(step).get(INTERRUPT_KEY) == interrupt_id:
            return str(step.get("id"))
    return None


async def send_pending_prompt(
    prompt: PendingPrompt, steps: Sequence[dict[str, Any]] | None = None, *, persist: bool = True
) -> str:
    """Show `prompt` with its buttons (re-attached to its stored message when there is one)."""
    async with _session_lock():
        return await _send_pending_prompt(prompt, steps, persist=persist)


async def _send_pending_prompt(prompt: PendingPrompt, steps: Sequence[dict[str, Any]] | None, *, persist: bool) -> str:
    await _clear_live_prompt()
    actions = prompt.buttons()
    for action in actions:
        # Chainlit's page appends every `action` event, even one whose id it already shows (and
        # keeps actions across a resume_thread): a copy left on the page by an earlier session,
        # process or instance goes first. Removing an id the page does not show is a no-op.
        await action.remove()
    await _remove_answered_buttons(steps, {action.id for action in actions})
    message_id = stored_prompt_id(steps, prompt.interrupt_id)
    message: cl.Message | None = None
    if message_id is None:
        message = cl.Message(
            content=prompt.prompt,
            actions=actions,
            author=prompt.author,
            metadata={INTERRUPT_KEY: prompt.interrupt_id, "kind": prompt.kind,
                      BUTTONS_KEY: [action.id for action in actions]},
        )
        if not persist:
            message.persisted = True  # Chainlit skips the data layer for a message marked so
        message_id = message.id
    # recorded before anything is sent: a second resume of this session racing this one (the
    # browser reconnects) finds these buttons and removes them instead of leaving a second set
    _set_live(
        {"interrupt_id": prompt.interrupt_id, "message_id": message_id, "actions": actions, "language": prompt.language}
    )
    if message is None:
        for action in actions:
            await action.send(for_id=message_id)
    else:
        await message.send()
    return message_id


async def _remove_answered_buttons(steps: Sequence[dict[str, Any]] | None, keep: set[str]) -> None:
    """On a thread shown again, take the buttons of its answered prompts off the page.

    The page keeps its buttons across a `resume_thread`, and a removal sent while it switched
    sockets (the reconnect that follows a resume, to the thread's chat profile) never reached it:
    an answered prompt kept clickable-looking buttons under the new one (issue 24, seen in Chromium).
    Removing an id the page does not hold is a no-op."""
    for button_id in stored_button_ids(steps):
        if button_id not in keep:
            await cl.context.emitter.emit("remove_action", {"id": button_id})


# The live prompt of each socket session, kept out of `cl.user_session`: Chainlit persists the
# user session into the thread's metadata and, on every resume (also a reconnect of the same
# session, e.g. when the browser switches to the thread's chat profile), replaces it with that
# metadata copy, where the buttons are gone. The second resume then could not remove the first
# resume's buttons and the page showed two sets. Keyed by the session object: gone with it.
_live_prompts: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()


def _get_live() -> dict[str, Any] | None:
    return _live_prompts.get(cl.context.session)


def _set_live(live: dict[str, Any] | None) -> None:
    session = cl.context.session
    if live is None:
        _live_prompts.pop(session, None)
    else:
        _live_prompts[session] = live


def _session_lock() -> asyncio.Lock:
    """One prompt change at a time per socket session: two resumes racing (the browser reconnects
    while the first resume still sends) each remove the other's buttons before adding theirs."""
    session = cl.context.session
    lock = _session_locks.get(session)
    if lock is None:
        lock = _session_locks[session] = asyncio.Lock()
    return lock


_session_locks: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()


async def clear_live_prompt() -> str | None:
    """Remove the live prompt's buttons (it was answered); its interrupt id, if any."""
    async with _session_lock():
        return await _clear_live_prompt()


async def _clear_live_prompt() -> str | None:
    live = _get_live()
    if not live:
        return None
    _set_live(None)
    for action in live.get("actions") or []:
        try:
            await action.remove()
        except Exception:
            logger.debug("could not remove a prompt button", exc_info=True)
    return live.get("interrupt_id")


def live_interrupt_id() -> str | None:
    live = _get_live()
    return live.get("interrupt_id") if live else None


def live_language(default: str = "en") -> str:
    live = _get_live()
    return str(live.get("language") or default) if live else default


def is_live(action: cl.Action) -> bool:
    """The button may still answer its prompt (not an answered or older one of this session).

    A button that carries an interrupt id is judged by that id: its session's live prompt, when it
    has one, must be the same interrupt; without one (the click reached the session before its
    restore, or another session of the same page after a reload or reconnect) the caller's check
    against the checkpoint's pending id, under the thread lock, decides. Other buttons must belong
    to the message of this session's live prompt."""
    live = _get_live()
    clicked = clicked_interrupt_id(action)
    if clicked is not None:
        return not live or not live.get("interrupt_id") or clicked == live.get("interrupt_id")
    return bool(live) and action.forId == live.get("message_id")


def clicked_interrupt_id(action: cl.Action) -> str | None:
    value = (action.payload or {}).get(INTERRUPT_KEY)
    return str(value) if value else None


_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()


def thread_lock(thread_id: str) -> asyncio.Lock:
    """The process-wide lock of one thread: a click and a typed reply never resume together."""
    lock = _locks.get(thread_id)
    if lock is None:
        lock = asyncio.Lock()
        _locks[thread_id] = lock
    return lock


async def refuse_stale(language: str = "en", author: str = "Relais") -> None:
    """Say, briefly, that a click was not sent (the question was already answered)."""
    session = cl.context.session
    _refusals[session] = _refusals.get(session, 0) + 1
    message = cl.Message(content=i18n.translate("prompt.stale", language), author=author)
    message.persisted = True  # a transient note, not part of the conversation
    await message.send()


_turns: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
_refusals: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def refusals() -> int:
    """How many clicks this session had refused as stale (a caller compares before and after)."""
    return _refusals.get(cl.context.session, 0)


def begin_turn() -> None:
    """A message or a click starts a turn in this session: a prompt restored for a resume that
    was scheduled before it is out of date (the turn shows its own) and is not sent."""
    session = cl.context.session
    _turns[session] = _turns.get(session, 0) + 1


def schedule_after_resume(callback: Callable[[], Awaitable[None]]) -> None:
    """Run `await callback()` once Chainlit has emitted the resumed thread to the browser.

    Chainlit sends `resume_thread` after `on_chat_resume` returns, and the browser replaces the
    page with it: anything sent from the hook is wiped (Chainlit #2611). The session's emitter is
    wrapped so that the callbacks run right after that emit, in order, in the session's context,
    each under the thread's lock; skipped if a turn began in the session meanwhile (a person who
    typed right after opening the thread: that turn's answer has the live prompt, not this one).
    """
    session = cl.context.session
    scheduled_at = _turns.get(session, 0)

    async def guarded() -> None:
        async with thread_lock(session.thread_id):
            if _turns.get(session, 0) == scheduled_at:
                await callback()

    emitter = cl.context.emitter
    queue: list[Callable[[], Awaitable[None]]] | None = getattr(emitter, "_relais_after_resume", None)
    if queue is None:
        queue = []
        original = emitter.resume_thread

        async def run_queue() -> None:
            callbacks, queue[:] = list(queue), []
            for pending in callbacks:
                try:
                    await pending()
                except Exception:
                    logger.exception("a callback after resume failed")

        async def resume_then_run(thread: Any) -> Any:
            result = await original(thread)
            await run_queue()
            return result

        async def fallback() -> None:
            await asyncio.sleep(_FALLBACK_DELAY_S)
            if queue:
                logger.warning("Chainlit did not emit resume_thread in time; sending pending prompts anyway")
                await run_queue()

        emitter.resume_thread = resume_then_run
        emitter._relais_after_resume = queue
        asyncio.get_running_loop().create_task(fallback())
    queue.append(guarded)


__all__ = [
    "CHOICE_ACTION",
    "BUTTONS_KEY",
    "INTERRUPT_KEY",
    "Choice",
    "PendingPrompt",
    "begin_turn",
    "clear_live_prompt",
    "clicked_interrupt_id",
    "is_live",
    "live_interrupt_id",
    "live_language",
    "refusals",
    "refuse_stale",
    "schedule_after_resume",
    "send_pending_prompt",
    "stored_button_ids",
    "stored_prompt_id",
    "thread_lock",
]
