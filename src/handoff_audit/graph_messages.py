"""What one turn of a LangGraph graph said, read from its messages: the turn's own messages, the
tool-call protocol (every call answered once), the last reply and who wrote it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage


def turn_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The messages after the last human message (what the current turn produced)."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], HumanMessage):
            return list(messages[index + 1 :])
    return list(messages)


def turn_number(messages_before: Sequence[BaseMessage]) -> int:
    """1-based number of the turn about to run: human messages already in state + 1.

    Stable across retries of the same turn (they restart from the same checkpoint), so the
    operation id derived from it is too.
    """
    return sum(isinstance(m, HumanMessage) for m in messages_before) + 1


@dataclass(frozen=True)
class ToolProtocol:
    """The ids the receipt needs: the call that opened the cycle and the ToolMessage that closed it."""

    tool_call_id: str | None
    tool_message_call_id: str | None
    open_calls: tuple[str, ...] = ()


def tool_protocol(messages: Sequence[BaseMessage]) -> ToolProtocol:
    """Match every tool call of these messages with its ToolMessage.

    The first call left open wins (its id, no closing id): that is the malformed history the
    next model call would trip on. If all are closed, the last closed pair is reported. A
    ToolMessage answering an id nobody called is reported as a mismatched close.
    """
    calls: list[str] = []
    closed: list[str] = []
    for message in messages:
        if isinstance(message, AIMessage):
            calls += [str(call.get("id")) for call in message.tool_calls if call.get("id")]
        elif isinstance(message, ToolMessage):
            closed.append(str(message.tool_call_id))
    open_calls = tuple(call for call in calls if call not in closed)
    if open_calls:
        return ToolProtocol(open_calls[0], None, open_calls)
    orphans = [c for c in closed if c not in calls]
    if orphans and calls:
        return ToolProtocol(calls[-1], orphans[-1])
    if calls:
        return ToolProtocol(calls[-1], calls[-1])
    return ToolProtocol(None, orphans[-1] if orphans else None)


def message_text(message: BaseMessage) -> str:
    """Plain text of a message's content (string or content blocks)."""
    content = message.content
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def last_reply(
    messages: Sequence[BaseMessage], names: Iterable[str] | None = None
) -> AIMessage | None:
    """The last AI message with text (optionally only from these agent names)."""
    allowed = set(names) if names is not None else None
    for message in reversed(messages):
        named_ok = allowed is None or message.name is None or message.name in allowed
        if isinstance(message, AIMessage) and named_ok and message_text(message).strip():
            return message
    return None


def last_speaker(messages: Sequence[BaseMessage], agents: Iterable[str]) -> str | None:
    """Name of the last agent that answered, from `AIMessage.name` (None if no named reply)."""
    allowed = set(agents)
    for message in reversed(messages):
        if isinstance(message, AIMessage) and message.name in allowed:
            return message.name
    return None
