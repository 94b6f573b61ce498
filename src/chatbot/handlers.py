"""What the Chainlit handlers do: auth, profiles, starters, and dispatch to the chat profile."""

from __future__ import annotations

import asyncio
import importlib
import logging
from typing import Any, Protocol

import chainlit as cl
from chainlit.data import get_data_layer
from chainlit.server import app, sio

from assistant import i18n
from assistant.input_guard import is_blank
from assistant.settings import assistant_settings
from chatbot.activity import ACTIVITY
from chatbot.admin import register_admin_routes
from chatbot.ask_api import register_ask_route
from chatbot.auth import ensure_auth_secret
from chatbot.chainlit_fixes import action_route, edge, session_router
from chatbot.chainlit_fixes.element_store import register_blob_route
from chatbot.chainlit_fixes.feedback_owner import register_feedback_routes
from chatbot.chainlit_fixes.translations import quiet_readme_fallback, register_translation_route
from chatbot.doctor import refuse_unsafe_start
from chatbot.login import guard_for, login
from chatbot.persistence import create_data_layer_sync
from chatbot.profiles import catalog
from chatbot.settings import chatbot_settings
from chatbot.ui.page_info import register_page_info_route
from chatbot.ui.pending import begin_turn, clicked_interrupt_id, live_interrupt_id, refusals
from chatbot.ui.tabs import (
    STALE_CLICK_NOTE,
    forget_note,
    refresh_other_tabs,
    schedule_note,
    show_current_state,
)
from chatbot.ui.titles import mark_resumed, schedule_title
from chatbot.warm import start_warm_start
from chatbot.workers import ensure_worker_pool
from relais.logging import configure_logging
from relais.models import is_offline
from relais.settings import get_settings, secret_values
from relais.tracing import setup_tracing

logger = logging.getLogger(__name__)

ASSISTANT = "Assistant"
PROFILES: dict[str, str] = {
    # name (the stable key; what a person reads is in profiles/catalog.py): module
    ASSISTANT: "chatbot.profiles.assistant",
    "Coach": "chatbot.profiles.coach",
    "Debate": "chatbot.profiles.debate",
    "Knowledge update": "chatbot.profiles.kb_update",
}


def startup() -> None:
    """Process start: logging with secret scrubbing, the auth secret, the element file route."""
    settings = chatbot_settings()
    configure_logging(settings.kit.relais_log_level, secret_values())
    ensure_auth_secret(settings)
    edge.trust_proxies(settings)
    edge.install(app)
    session_router.install(app, sio, lambda: data_layer().engine, settings)  # no sticky sessions needed
    action_route.install(sio)  # a click waits for its session's socket, or the page is told (issue 24)
    refuse_unsafe_start(settings)
    register_blob_route(lambda: getattr(data_layer(), "storage_provider", None))
    register_ask_route()  # `relais ask` answers from this warm process
    start_warm_start(settings)  # encoders, Chroma, BM25 loaded before /relais/ready says ready
    register_translation_route(lambda: is_offline(get_settings()))  # the footer matches the engine
    quiet_readme_fallback()  # Chainlit's "Translated markdown file … not found": once per language
    register_page_info_route(lambda: is_offline(get_settings()))  # the admin link, the footer per profile
    register_admin_routes()  # operator pages under /admin (RELAIS_ADMINS)
    register_feedback_routes()  # thumbs on one's own answers only
    setup_tracing("relais-chatbot", settings.kit)  # only with OTEL_EXPORTER_OTLP_ENDPOINT


async def shutdown() -> None:
    """Close pooled connections (external agent client)."""
    # lazy: assistant.external_agent +2-4 s (LangGraph SDK): only a hand-off opened one
    from assistant.external_agent import aclose_client

    await aclose_client()


_layer: Any = None


def data_layer() -> Any:
    """The Chainlit data layer (SQLite by default, Postgres with DATABASE_URL), schema ensured."""
    global _layer
    if _layer is None:
        _layer = create_data_layer_sync(get_settings())
    return _layer


async def authenticate(username: str, password: str) -> cl.User | None:
    """Password login, limited per username and client address in the shared chat database."""
    settings = chatbot_settings()
    if await login(username, password, guard_for(data_layer().engine, settings), settings):
        return cl.User(identifier=username, metadata={"provider": "password"})
    return None


def chat_profiles(language: str | None) -> list[cl.ChatProfile]:
    """Names, icons, welcomes and starters per profile, in the user's language (profiles/catalog.py)."""
    return catalog.chat_profiles(language, assistant_settings())


def starters(language: str | None) -> list[cl.Starter]:
    return catalog.starters_for(ASSISTANT, language)


class ProfileModule(Protocol):
    """What every module of `chatbot.profiles` provides; `on_chat_resume(thread)` and
    `on_choice(action)` are optional (the Debate has no prompt to resume or click)."""

    async def on_chat_start(self) -> None: ...

    async def on_message(self, message: cl.Message) -> None: ...


def _profile_module() -> ProfileModule:
    """The session's profile module, imported on its first chat (lazy: the Debate and the
    Knowledge update bring their LangGraph graphs, which would slow every app start)."""
    name = cl.user_session.get("chat_profile") or ASSISTANT
    module_name = PROFILES.get(name, PROFILES[ASSISTANT])
    return importlib.import_module(module_name)  # type: ignore[return-value]  # a module satisfies the protocol


async def on_chat_start() -> None:
    ensure_worker_pool()  # every profile: simultaneous turns must not queue for asyncio's few default workers
    await _profile_module().on_chat_start()


async def on_chat_resume(thread: dict[str, Any]) -> None:
    mark_resumed(cl.user_session)
    ensure_worker_pool()
    schedule_note()  # shown the thread because another tab went on: said again after this resume
    module = _profile_module()
    resume = getattr(module, "on_chat_resume", None)
    if resume is not None:
        await resume(thread)


_profile_writes: set[asyncio.Task[None]] = set()  # profile writes under way (a reference keeps each alive)


def remember_profile() -> None:
    """The thread reopens in its profile (another tab, a reload, a crash): Chainlit saves the
    session's profile into the thread only at disconnect, so a tab opening the thread meanwhile
    resumed it as the Assistant, without the coach's pending question. Written once per session,
    beside the turn rather than before it: on a new thread the write queued behind Chainlit's own
    thread writes (14 % of a first turn under the 50-conversation load, `benchmarks/bench_load.py`)."""
    profile, layer = cl.user_session.get("chat_profile"), get_data_layer()
    if not profile or layer is None or cl.user_session.get("relais_profile_saved") == profile:
        return
    thread_id = cl.context.session.thread_id

    async def write() -> None:
        try:
            await layer.update_thread(thread_id, metadata={"chat_profile": profile})
            cl.user_session.set("relais_profile_saved", profile)
        except Exception:  # only the resume profile depends on it: said, not raised
            logger.warning("could not remember the profile of thread %s", thread_id, exc_info=True)

    task = asyncio.create_task(write())
    _profile_writes.add(task)
    task.add_done_callback(_profile_writes.discard)


async def on_message(message: cl.Message) -> None:
    """A message with nothing visible in it (zero-width spaces…; public/relais.js does not send
    one) is no request: the person is asked to type one; no profile runs, no thread title."""
    if is_blank(message.content) and not message.elements:
        # lazy: +0.75 s (assistant.orchestrator): the profiles load it at the first chat
        from chatbot.profiles._turn import user_language

        await cl.Message(content=i18n.translate("ui.empty_question", user_language("")), author="Relais").send()
        return
    schedule_title(message.content)  # a new thread's title: local time · first request
    begin_turn()
    forget_note()
    remember_profile()
    with ACTIVITY.turn():  # background work (the composer's prefill) waits for it
        await _profile_module().on_message(message)
    refresh_other_tabs(on_chat_resume)  # another tab on this thread shows where it is now


async def on_choice(action: cl.Action) -> None:
    """A quick-choice button under an agent prompt: the profile resumes its prompt once (the
    button's payload carries the interrupt id; `chatbot.ui.pending` removes answered buttons).
    Then the other tabs on the thread show the new state. A refused click on the question this
    tab showed as current (answered in a tab of another instance) shows this tab the new state;
    an older button of this tab (a double click) only gets the short refusal note."""
    handler = getattr(_profile_module(), "on_choice", None)
    begin_turn()
    forget_note()
    refused = refusals()
    clicked = clicked_interrupt_id(action)
    tab_was_current = clicked is not None and clicked == live_interrupt_id()
    if handler is None:
        await action.remove()
        return
    with ACTIVITY.turn():
        await handler(action)
    if refusals() == refused:
        refresh_other_tabs(on_chat_resume)
    elif tab_was_current:
        await show_current_state(cl.context.session, on_chat_resume, STALE_CLICK_NOTE)

