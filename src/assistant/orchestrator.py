"""One turn of the assistant: mode → (classify → answer from the KB) or forward to the agent.

Yields typed events (`relais.events`); the Chainlit app and the CLI render them. Seed 004's
names are the product path: `prepare_rag_context` builds the numbered context,
`forward_to_external_agent` is the forward step (asked for typed events), and
`get_enhanced_system_prompt` runs once at session start (`session_system_prompt`). The seed's
string markers (`__MODE__:ALTER`, `__STEP__:tool:...`) are not used inside Relais: they survive
only as `forward_to_external_agent`'s default string surface.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, AsyncIterator, Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from assistant import i18n
from assistant.collaborators import HandoffAudit, KnowledgeSource
from assistant.input_guard import Verdict, strip_invisible
from assistant.intent_classifier import (
    IntentType,
    chunk_text,
    classify_intent_and_answer,
    history_messages,
)
from assistant.modes import ALTER, NORMAL
from assistant.offline_intent import few_shots_for, get_input_guard, get_offline_classifier
from assistant.prompts import BASE_SYSTEM_PROMPT, format_context, get_enhanced_system_prompt
from assistant.settings import AssistantSettings, assistant_settings
from knowledge.extractive import extractive_answer, subject_in_base
from knowledge.retrieval import Hit, get_knowledge_base
from knowledge.settings import KnowledgeSettings, knowledge_settings
from relais import tracing
from relais.events import (
    ChatEvent,
    DoneEvent,
    EngineEvent,
    ErrorEvent,
    ModeEvent,
    ReplyKindEvent,
    SourcesEvent,
    TextChunk,
)
from relais.language import detect_language
from relais.models import chat_model, engine_info
from relais.retry import RetryPolicy
from relais.settings import Settings

if TYPE_CHECKING:  # the clients import httpx and langgraph-sdk: loaded on the first hand-off only
    from assistant.external_agent import AgentClient

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PreparedQuestion:
    """The question as it will be processed, and a notice for the user when it was changed."""

    text: str
    notice: str | None = None


def prepare_question(raw: str, language: str, settings: KnowledgeSettings | None = None) -> PreparedQuestion:
    """Strip (invisible characters too); an empty question is rejected; an over-long one is
    truncated with a notice (at the knowledge base's MAX_QUESTION_CHARS)."""
    text = strip_invisible(raw or "").strip()
    if not text:
        return PreparedQuestion("", i18n.translate("ui.empty_question", language))
    limit = (settings or knowledge_settings()).max_question_chars
    if len(text) > limit:
        return PreparedQuestion(text[:limit], i18n.translate("ui.truncated_question", language, limit=limit))
    return PreparedQuestion(text)


def hit_to_source(hit: Hit) -> dict[str, Any]:
    """A retrieved chunk as a source of the answer; its language lets the page say that a
    "see also" article is in another language than the answer."""
    return {
        "source": hit.source,
        "title": hit.title,
        "section": getattr(hit, "section", ""),
        "score": round(float(hit.score), 4),
        "excerpt": hit.text,
        "language": detect_language(f"{hit.title}. {hit.text}"),
    }


def prepare_rag_context(hits: Sequence[Hit]) -> str:
    """The seed's `prepare_rag_context`: the retrieved passages as the numbered context block
    ([1] title, text…) that the model is asked to cite."""
    return format_context([(h.title, h.text) for h in hits])


def _chunk_words(text: str, size: int = 3) -> list[str]:
    words = text.split(" ")
    return [" ".join(words[i : i + size]) + (" " if i + size < len(words) else "") for i in range(0, len(words), size)]


@dataclass
class Orchestrator:
    """Everything a turn needs, built once per process and shared by all sessions."""

    settings: AssistantSettings = field(default_factory=assistant_settings)
    model: BaseChatModel | None = None
    knowledge_base: KnowledgeSource | None = None
    agent_client: AgentClient | None = None
    model_resolved: bool = False
    retry: RetryPolicy | None = None
    system_prompt: str = ""  # the base prompt, escalation instructions included when enabled

    def __post_init__(self) -> None:
        self.system_prompt = self.system_prompt or self.session_system_prompt()
        if not self.model_resolved and self.model is None:
            self.model = chat_model(self.settings.kit)
        self.model_resolved = True
        if self.retry is None:
            self.retry = RetryPolicy.for_model_calls(self.settings.kit)  # LLM_MAX_RETRIES attempts in all

    def session_system_prompt(self) -> str:
        """The seed's session start: `get_enhanced_system_prompt` once, kept with the session and
        passed back with each question (`system_prompt=`), instead of being rebuilt per call."""
        return get_enhanced_system_prompt(BASE_SYSTEM_PROMPT, self.settings)

    # lazily built collaborators
    def kb(self) -> KnowledgeSource:
        if self.knowledge_base is None:
            self.knowledge_base = get_knowledge_base(knowledge_settings().on(self.settings.kit))
        return self.knowledge_base

    def agent(self) -> AgentClient:
        if self.agent_client is None:
            # lazy: assistant.external_agent +4 s (httpx, LangGraph SDK), first hand-off only
            from assistant.external_agent import get_client

            self.agent_client = get_client()
        return self.agent_client

    @property
    def engine_label(self) -> str:
        return engine_info(self.settings.kit).label if self.model is None else _model_label(self.model, self.settings.kit)

    # --- the turn ------------------------------------------------------------------------
    def process_question(self, question: str, session_mode: str | None, **kwargs: Any) -> AsyncIterator[ChatEvent]:
        """One turn (`_process_question`), traced as the `receive` span when tracing is on."""
        return tracing.traced("receive", self._process_question(question, session_mode, **kwargs),
                              mode=session_mode or NORMAL, thread_id=kwargs.get("thread_id"))

    async def _process_question(
        self,
        question: str,
        session_mode: str | None,
        *,
        user_id: str = "chainlit_user",
        conversation_history: Sequence[dict[str, str]] | None = None,
        thread_id: str | None = None,
        language: str = "en",
        system_prompt: str | None = None,
        audit: HandoffAudit | None = None,
        interrupt_id: str | None = None,
    ) -> AsyncIterator[ChatEvent]:
        """The seed's flow: ALTER threads go straight to the agent; others are classified.

        `audit` (a `handoff_audit.ForwardAudit`) collects the hand-off's evidence when given;
        `interrupt_id` is the agent prompt a button click answers (ALTER threads only).
        """
        history = list(conversation_history or [])
        system_prompt = system_prompt or self.system_prompt
        if self.settings.enable_orchestrator and session_mode == ALTER:
            async for event in self.forward(question, user_id, history, thread_id, language, audit, interrupt_id):
                yield event
            return

        verdict = await self._assess(question)
        if verdict.social:  # a greeting or thanks: a short friendly reply, no search, no hand-off
            reply = i18n.translate(f"smalltalk.{verdict.kind}", verdict.language or language)
            yield EngineEvent(self.engine_label)
            yield ReplyKindEvent("smalltalk")  # not a knowledge-base miss (feedback analytics)
            for piece in _chunk_words(reply):
                yield TextChunk(piece)
            yield DoneEvent()
            return

        hits = await self._retrieve(question)
        if hits is None:
            yield ErrorEvent(i18n.translate("ui.kb_missing", language), code="kb_missing")
            yield DoneEvent()
            return
        if self.model is not None and hits:  # the model gets the context the offline composer would use
            hits = await asyncio.to_thread(self._about_the_subject, question, hits)

        if not self.settings.enable_orchestrator:
            yield EngineEvent(self.engine_label)
            async for event in tracing.traced("answer", self._answer(question, hits, history, language, system_prompt)):
                yield event
            return

        try:
            with tracing.span("classify"):
                intent, answer = await self._classify(question, hits, history)
        except Exception as exc:  # every attempt failed before the first token: one clear message
            logger.warning("intent classification failed after retries: %s", type(exc).__name__)
            yield ErrorEvent(i18n.translate("ui.model_error", language), code="model_error")
            yield DoneEvent()
            return
        yield ModeEvent(intent.value)
        if intent is IntentType.ALTER:
            async for event in self.forward(question, user_id, history, thread_id, language, audit):
                yield event
            return
        yield EngineEvent(self.engine_label)
        if answer is None:  # offline: the classifier did not answer
            async for event in tracing.traced("answer", self._answer(question, hits, history, language, system_prompt)):
                yield event
            return
        async for event in tracing.traced("answer", self._stream_answer(answer, hits, language)):
            yield event

    async def forward(
        self,
        question: str,
        user_id: str,
        history: list[dict[str, str]],
        thread_id: str | None,
        language: str,
        audit: HandoffAudit | None = None,
        interrupt_id: str | None = None,
    ) -> AsyncIterator[ChatEvent]:
        done = False
        # lazy: tests patch external_agent.forward_to_external_agent; +4 s, hand-off only
        from assistant.external_agent import forward_to_external_agent

        events = forward_to_external_agent(  # the seed's forward step, typed events
            question, user_id, history, thread_id, language,
            interrupt_id=interrupt_id, client=self.agent(), as_events=True,
        )
        if audit is not None:
            audit.sent(message=question, user_id=user_id, history=history, thread_id=thread_id)
            events = audit.watch(events)
        events = tracing.traced("forward", events, thread_id=thread_id)
        async for event in events:
            done = done or isinstance(event, DoneEvent)
            yield event
        if not done:
            yield DoneEvent()

    # --- steps ---------------------------------------------------------------------------
    async def _retrieve(self, question: str) -> list[Hit] | None:
        kb = await asyncio.to_thread(self.kb)  # the first call loads the encoder and opens Chroma
        if await asyncio.to_thread(kb.is_empty):
            return None
        with tracing.span("retrieve"):  # bm25, dense and fusion are its children (KnowledgeBase.search)
            return await asyncio.to_thread(kb.search, question)

    def _about_the_subject(self, question: str, hits: list[Hit]) -> list[Hit]:
        """`hits`, or none when the base never speaks of the question's subject (a brand, a place
        it never names: `knowledge.coverage`): passages that only read close to the question are
        no context for a model, as they are no answer offline."""
        return hits if subject_in_base(question, hits, None, self.knowledge_base) else []

    async def _assess(self, question: str) -> Verdict:
        """The input guard (`assistant.input_guard`) over the few-shot file's words."""
        guard = await asyncio.to_thread(get_input_guard, self.settings)
        return guard.assess(question)

    async def _classify(self, question: str, hits: list[Hit], history: list[dict[str, str]]):
        """ALTER only on content: low-information input stays NORMAL, no classifier, no model call."""
        if not (await self._assess(question)).has_content:
            return IntentType.NORMAL, None
        if self.model is None:
            classifier = await asyncio.to_thread(get_offline_classifier, self.settings)
            result = await asyncio.to_thread(classifier.classify, question)
            return result.intent, None
        few_shots = await asyncio.to_thread(few_shots_for, self.settings.relais_intents_file)
        context = prepare_rag_context(hits)
        # Nothing has reached the user until the prefix is decided, so the whole call can be retried.
        return await self.retry.call(  # type: ignore[union-attr]
            classify_intent_and_answer, self.model, question, context, few_shots, history
        )

    async def _answer(
        self, question: str, hits: list[Hit], history: list[dict[str, str]], language: str,
        system_prompt: str | None = None,
    ) -> AsyncIterator[ChatEvent]:
        """Pure RAG answer (no classification): the model with the context, or extractive."""
        if self.model is None:
            embedder = getattr(self.knowledge_base, "embedder", None)  # the encoder the KB was built with
            result = await asyncio.to_thread(extractive_answer, question, hits, embedder, kb=self.knowledge_base)
            for piece in _chunk_words(result.text):
                yield TextChunk(piece)
            if result.found:  # cited sources, then related articles ("see also")
                weak = {"weak": True} if result.weak else {}  # the knowledge-gap report counts weak answers
                yield SourcesEvent([{**hit_to_source(h), **weak} for h in result.sources]
                                   + [{**hit_to_source(h), "related": True} for h in result.related])
            yield DoneEvent()
            return
        system = (system_prompt or self.system_prompt) + "\n\nContext:\n" + prepare_rag_context(hits)
        messages = [SystemMessage(content=system), *history_messages(history), HumanMessage(content=question)]
        try:
            answer = await self.retry.call(self._started_stream, messages)  # type: ignore[union-attr]
        except Exception as exc:
            logger.warning("answer failed after retries: %s", type(exc).__name__)
            yield ErrorEvent(i18n.translate("ui.model_error", language), code="model_error")
            yield DoneEvent()
            return
        async for event in self._stream_answer(answer, hits, language):
            yield event

    async def _started_stream(self, messages: list[Any]) -> AsyncIterator[str]:
        """The model's answer once its first token is in: retries happen before, never after."""
        stream = self.model.astream(messages)  # type: ignore[union-attr]
        first = ""
        async for chunk in stream:
            first = chunk_text(chunk)
            if first:
                break

        async def rest() -> AsyncIterator[str]:
            if first:
                yield first
            async for chunk in stream:
                text = chunk_text(chunk)
                if text:
                    yield text

        return rest()

    async def _stream_answer(self, answer: AsyncIterator[str], hits: list[Hit], language: str) -> AsyncIterator[ChatEvent]:
        try:
            async for text in answer:
                yield TextChunk(text)
        except Exception as exc:  # provider error mid-answer: say so, keep what streamed
            logger.warning("model failed while answering: %s", type(exc).__name__)
            yield ErrorEvent(i18n.translate("ui.model_error", language), code="model_error")
            yield DoneEvent()
            return
        if hits:
            yield SourcesEvent([hit_to_source(h) for h in hits])
        yield DoneEvent()


def _model_label(model: BaseChatModel, settings: Settings) -> str:
    name = getattr(model, "model", None) or getattr(model, "model_name", None) or type(model).__name__
    info = engine_info(settings)
    return f"{info.kind}:{name}" if info.kind != "offline" else str(name)


_default: Orchestrator | None = None


def get_orchestrator() -> Orchestrator:
    """The process-wide orchestrator (models, clients and indexes are created once)."""
    global _default
    if _default is None:
        _default = Orchestrator()
    return _default


async def process_question(question: str, session_mode: str | None, **kwargs: Any) -> AsyncIterator[ChatEvent]:
    """The seed's entry point, on the process-wide orchestrator."""
    async for event in get_orchestrator().process_question(question, session_mode, **kwargs):
        yield event


__all__ = [
    "ALTER", "NORMAL", "Orchestrator", "PreparedQuestion", "get_orchestrator", "prepare_question",
    "prepare_rag_context", "process_question",
]
