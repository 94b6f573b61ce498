"""The default profile: RAG answers with sources; with the orchestrator on, ALTER hands the
thread over to the external agent for good (persisted in the thread's metadata at once)."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

import chainlit as cl
from chainlit.data import get_data_layer

from assistant import i18n
from assistant.modes import ALTER, NORMAL
from assistant.orchestrator import get_orchestrator
from chatbot.feedback import COACH, HELP_CENTER
from chatbot.profiles._turn import accept, echo_choice, user_language
from chatbot.session import history_from_steps, mode_from_thread
from chatbot.settings import chatbot_settings
from chatbot.thread_mode import read_thread_mode, write_alter_mode
from chatbot.ui.interrupts import EDIT_CHOICE, edit_help
from chatbot.ui.pending import (
    clear_live_prompt,
    clicked_interrupt_id,
    is_live,
    live_language,
    refuse_stale,
    schedule_after_resume,
    send_pending_prompt,
    thread_lock,
)
from chatbot.ui.render import TurnRenderer, pending_prompt
from handoff_audit.classifier import classify
from handoff_audit.forward import ForwardAudit
from handoff_audit.recorder import ReceiptStore
from handoff_audit.render import render_markdown, verdict_line
from relais.approvals import is_decision_reply
from relais.events import ModeEvent
from relais.settings import secret_values

logger = logging.getLogger(__name__)

EDITING_KEY = "editing_interrupt"  # the card whose Edit button was clicked: the next text is its changes
AGENT_AUTHOR = "Agent"  # the author of relayed answers, whichever agent: public/avatars/agent.svg, badge by relais.js


async def on_chat_start() -> None:
    cl.user_session.set("mode", NORMAL)
    cl.user_session.set("history", [])
    cl.user_session.set("system_prompt", get_orchestrator().session_system_prompt())  # seed 004


async def on_chat_resume(thread: dict[str, Any]) -> None:
    mode = mode_from_thread(thread)
    cl.user_session.set("mode", mode)
    cl.user_session.set("history", history_from_steps(thread.get("steps") or []))
    cl.user_session.set("system_prompt", get_orchestrator().session_system_prompt())
    if mode == ALTER and get_orchestrator().settings.enable_orchestrator:
        await _restore_agent_prompt(thread)


def _user_id() -> str:
    """The user id the agent knows this user by (the one every forwarded turn carries)."""
    return getattr(cl.user_session.get("user"), "identifier", None) or "chainlit_user"


async def _restore_agent_prompt(thread: dict[str, Any]) -> None:
    """Ask the agent what the thread waits on; show it again (after Chainlit's resume emit).

    An agent without the pending endpoint cannot say: no buttons, a sentence to type the reply."""
    # lazy: assistant.external_agent +2-4 s (LangGraph SDK), for a handed-off thread only
    from assistant.external_agent import get_client

    found = await get_client().pending(thread["id"], _user_id())
    language = user_language("")
    steps = list(thread.get("steps") or [])
    if found.event is not None:
        prompt = pending_prompt(found.event, str(found.event.payload.get("language") or language))
        schedule_after_resume(lambda: send_pending_prompt(prompt, steps, persist=False))
    elif not found.supported:
        schedule_after_resume(lambda: _say_transient(i18n.translate("prompt.type_reply", language)))


async def _say_transient(text: str) -> None:
    message = cl.Message(content=text, author="Relais")
    message.persisted = True  # shown, not stored: it is re-said on every resume
    await message.send()


async def _stored_mode(thread_id: str) -> str | None:
    layer = get_data_layer()
    if layer is None:
        return None
    try:
        return await read_thread_mode(layer, thread_id)
    except Exception:
        logger.exception("could not read the mode of thread %s", thread_id)
        return None


async def _persist_alter(audit: ForwardAudit) -> None:
    """Write ALTER into the thread's metadata now, and prove it by reading it back."""
    layer = get_data_layer()
    thread_id = cl.context.session.thread_id
    user = cl.user_session.get("user")
    audit.decided(ALTER)
    before = await _stored_mode(thread_id)
    if layer is not None:
        try:
            await write_alter_mode(layer, thread_id, getattr(user, "id", None))
        except Exception:  # the mode still holds for this session; say it in the logs
            logger.exception("could not persist ALTER mode for thread %s", thread_id)
    audit.persisted(before=before, after=await _stored_mode(thread_id))


_receipts: ReceiptStore | None = None


def receipt_store() -> ReceiptStore:
    global _receipts
    if _receipts is None:
        _receipts = ReceiptStore(secrets=secret_values())
    return _receipts


async def _show_receipts(thread_id: str, since: datetime) -> None:
    """For demos only (`RELAIS_AUDIT_IN_CHAT`): the turn's handoffs in one collapsed step, one
    line each (verdict → destination) with the boundaries folded under it. Operators read
    receipts on the admin page; end users see nothing of them by default."""
    if not chatbot_settings().relais_audit_in_chat:
        return
    rows = await asyncio.to_thread(lambda: receipt_store().list(thread_id, since=since.isoformat()))
    if not rows:
        return
    async with cl.Step(name="Handoff audit", type="tool", default_open=False) as parent:
        lines = []
        for row in rows:
            verdict = classify(row.receipt)
            lines.append(verdict_line(verdict, row.receipt))
            async with cl.Step(name=lines[-1], type="tool", default_open=False) as detail:
                detail.output = render_markdown(verdict, row.receipt)
        parent.output = "\n".join(f"- {line}" for line in lines)


async def on_message(message: cl.Message) -> None:
    async with thread_lock(cl.context.session.thread_id):
        await clear_live_prompt()  # a typed reply answers the agent's pending prompt
        text = message.content
        if cl.user_session.get(EDITING_KEY) and not is_decision_reply(text):
            text = f"edit: {text}"  # the changes asked for by the card's Edit button
        cl.user_session.set(EDITING_KEY, None)
        await answer(text)


async def on_choice(action: cl.Action) -> None:
    """A quick choice under an agent prompt: relayed once, only while its prompt is pending.

    Checked here (this tab's live prompt, then the agent's pending id) and again by the agent,
    which answers 409 to a resume of a prompt that is no longer pending (another tab/instance)."""
    thread_id = cl.context.session.thread_id
    clicked = clicked_interrupt_id(action)
    async with thread_lock(thread_id):
        stale = not is_live(action)
        if not stale and clicked:
            # lazy: assistant.external_agent +2-4 s (LangGraph SDK), for a handed-off thread only
            from assistant.external_agent import get_client

            found = await get_client().pending(thread_id, _user_id())
            stale = found.supported and (found.event is None or found.event.interrupt_id != clicked)
            if stale:  # the live prompt was answered elsewhere (another tab): its buttons go too
                language = live_language()
                await clear_live_prompt()
                await refuse_stale(language)
                return
        if stale:
            await refuse_stale(live_language())
            return
        value = str(action.payload.get("value", action.label))
        if value == EDIT_CHOICE:  # not a resume: ask for the changes, the card stays answerable
            await _ask_for_edits(clicked)
            return
        await clear_live_prompt()
        cl.user_session.set(EDITING_KEY, None)
        await echo_choice(action.label or value)  # a card's "Approve", a coach choice's own label
        await answer(value, interrupt_id=clicked)


async def _ask_for_edits(interrupt_id: str | None) -> None:
    """The Edit button: how to type the changes (checked before anything is sent)."""
    # lazy: assistant.external_agent +2-4 s (LangGraph SDK), for a handed-off thread only
    from assistant.external_agent import get_client

    language = live_language()
    found = await get_client().pending(cl.context.session.thread_id, _user_id())
    help_text = edit_help(found.event, language) if found.event is not None else ""
    cl.user_session.set(EDITING_KEY, interrupt_id or True)
    if help_text:
        await _say_transient(help_text)


async def answer(raw_question: str, interrupt_id: str | None = None) -> None:
    prepared, language = await accept(raw_question)
    if not prepared.text:
        return
    mode = cl.user_session.get("mode") or NORMAL
    history: list[dict[str, str]] = cl.user_session.get("history") or []
    user = cl.user_session.get("user")
    orchestrator = get_orchestrator()
    renderer = TurnRenderer(language, author=AGENT_AUTHOR if mode == ALTER else "Relais", question=prepared.text,
                            channel=COACH if mode == ALTER else HELP_CENTER)
    thread_id = cl.context.session.thread_id
    turn_start = datetime.now(UTC)
    audit = ForwardAudit(thread_id=thread_id, turn=len(history) // 2 + 1, session_mode=mode)
    if mode == ALTER:
        stored = await _stored_mode(thread_id)
        audit.decided(ALTER)
        audit.persisted(before=stored, after=stored)

    async def events() -> Any:
        async for event in orchestrator.process_question(
            prepared.text,
            mode,
            user_id=getattr(user, "identifier", None) or "chainlit_user",
            conversation_history=history,
            system_prompt=cl.user_session.get("system_prompt"),
            thread_id=thread_id,
            language=language,
            audit=audit,
            interrupt_id=interrupt_id,
        ):
            if isinstance(event, ModeEvent) and event.mode == ALTER and cl.user_session.get("mode") != ALTER:
                cl.user_session.set("mode", ALTER)
                renderer.author = AGENT_AUTHOR  # from now on the agent answers (its avatar and badge)
                await _persist_alter(audit)
                await cl.Message(content=i18n.translate("handoff", language), author="Relais").send()
            yield event

    await renderer.render(events())
    if cl.user_session.get("mode") == ALTER:
        await asyncio.to_thread(receipt_store().try_record, audit.receipt(), thread_id)
        await _show_receipts(thread_id, turn_start)
    history += [{"role": "user", "content": prepared.text}, {"role": "assistant", "content": renderer.text}]
    cl.user_session.set("history", history[-40:])


__all__ = ["answer", "on_chat_resume", "on_chat_start", "on_choice", "on_message"]
