"""NORMAL vs ALTER in one LLM call that also answers, and the offline nearest-example classifier.

With a model, `classify_intent_and_answer` makes a single streaming call: a reply starting with
`ALTER` hands the question over; any other reply is already the answer and streams on. Only the
first characters are buffered, until the prefix is decided.
"""

from __future__ import annotations

from enum import Enum
from typing import AsyncGenerator, AsyncIterator, Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from assistant.prompts import get_enhanced_system_prompt, get_intent_detection_prompt

ALTER_PREFIX = "ALTER"


class IntentType(str, Enum):
    NORMAL = "NORMAL"  # answer from the knowledge base (RAG)
    ALTER = "ALTER"  # hand over to the external agent


def history_messages(conversation_history: Sequence[dict[str, str]] | None) -> list[BaseMessage]:
    """`[{"role": "user"|"assistant", "content": ...}]` as LangChain messages."""
    messages: list[BaseMessage] = []
    for turn in conversation_history or []:
        content = str(turn.get("content", ""))
        if turn.get("role") in ("assistant", "ai"):
            messages.append(AIMessage(content=content))
        else:
            messages.append(HumanMessage(content=content))
    return messages


def build_messages(
    question: str,
    context: str,
    few_shots_examples: str,
    conversation_history: Sequence[dict[str, str]] | None,
) -> list[BaseMessage]:
    system = get_enhanced_system_prompt(get_intent_detection_prompt())
    if few_shots_examples:
        system += "\n\nExamples:\n" + few_shots_examples
    system += "\n\nContext:\n" + context
    return [SystemMessage(content=system), *history_messages(conversation_history), HumanMessage(content=question)]


def decide_prefix(buffer: str, finished: bool) -> IntentType | None:
    """ALTER, NORMAL, or None while the buffered start of the reply is still ambiguous.

    "ALTER", "ALTER: ..." and "  ALTER ..." are ALTER; "ALTERNATIVE ..." is NORMAL.
    """
    text = buffer.lstrip()
    if not text:
        return IntentType.NORMAL if finished else None
    if len(text) <= len(ALTER_PREFIX):
        if ALTER_PREFIX.startswith(text):
            if text == ALTER_PREFIX and finished:
                return IntentType.ALTER
            return IntentType.NORMAL if finished else None
        return IntentType.NORMAL
    if text.startswith(ALTER_PREFIX) and not text[len(ALTER_PREFIX)].isalnum():
        return IntentType.ALTER
    return IntentType.NORMAL


def chunk_text(chunk: object) -> str:
    content = getattr(chunk, "content", chunk)
    if isinstance(content, list):  # content blocks
        return "".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)
    return str(content or "")


async def classify_intent_and_answer(
    client: BaseChatModel,
    question: str,
    context: str,
    few_shots_examples: str,
    conversation_history: Sequence[dict[str, str]] | None = None,
) -> tuple[IntentType, AsyncGenerator[str, None] | None]:
    """One streaming LLM call: (ALTER, None) or (NORMAL, generator of the answer's text)."""
    stream: AsyncIterator = client.astream(
        build_messages(question, context, few_shots_examples, conversation_history)
    )
    buffer = ""
    finished = False
    intent: IntentType | None = None
    while intent is None:
        try:
            buffer += chunk_text(await stream.__anext__())
        except StopAsyncIteration:
            finished = True
        intent = decide_prefix(buffer, finished)
    if intent is IntentType.ALTER:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
        return intent, None

    async def answer() -> AsyncGenerator[str, None]:
        if buffer:
            yield buffer
        if finished:
            return
        async for chunk in stream:
            text = chunk_text(chunk)
            if text:
                yield text

    return intent, answer()
