"""Prompts of the chatbot: RAG answering, intent detection, escalation instructions."""

from __future__ import annotations

from assistant.settings import AssistantSettings, assistant_settings

BASE_SYSTEM_PROMPT = (
    "You are Relais, the help-center assistant. Answer only from the numbered context passages; "
    "cite them as [1], [2]. If the context does not contain the answer, say you could not find it "
    "in the knowledge base. Answer in the user's language, briefly."
)

DEFAULT_INTENT_DETECTION_PROMPT = """You are an intent classifier and a help-center assistant.
Given the user's question, the context passages and the conversation history, decide:
- NORMAL: the question can be answered using the provided context (RAG): prices, account,
  billing, opening hours, privacy, how a feature works.
- ALTER: the user wants an action done for them personally (build or adjust a workout or meal
  plan, book, reserve, schedule, sign up). This needs an external agent.

If NORMAL: respond naturally using the context, citing passages as [1], [2]; do not write the
word ALTER at the start.
If ALTER: respond with exactly "ALTER" followed by a brief explanation, nothing else."""

ESCALATION_INSTRUCTIONS = (
    "\n\nYou can escalate to an external agent: when the user asks for an action to be done for "
    "them (a plan built, a booking made), reply with the word ALTER first and a short reason; "
    "the conversation is then handed over to that agent."
)


def get_intent_detection_prompt(settings: AssistantSettings | None = None) -> str:
    """`INTENT_DETECTION_PROMPT` when set, else the default."""
    settings = settings or assistant_settings()
    return settings.intent_detection_prompt or DEFAULT_INTENT_DETECTION_PROMPT


def get_enhanced_system_prompt(base_prompt: str, settings: AssistantSettings | None = None) -> str:
    """The base system prompt plus escalation instructions when the orchestrator is on."""
    settings = settings or assistant_settings()
    return base_prompt + ESCALATION_INSTRUCTIONS if settings.enable_orchestrator else base_prompt


def format_context(passages: list[tuple[str, str]]) -> str:
    """Numbered context block from (title, text) pairs."""
    if not passages:
        return "(no relevant passage found)"
    return "\n\n".join(f"[{i}] {title}\n{body}" for i, (title, body) in enumerate(passages, 1))
