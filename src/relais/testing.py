"""The one scripted fake chat model used by every test and benchmark (never the network).

`ScriptedChatModel` subclasses langchain_core's `GenericFakeChatModel` and adds what the
fakes lack: `bind_tools`, `with_structured_output`, scripted failures, and a record of every
prompt it received (so tests can assert what a node really sent to the model).

A script item may be:
- a `str` or an `AIMessage` (with `tool_calls` if you like): the reply;
- a `dict` or pydantic model: the reply to a structured-output call (sent as JSON content);
- an exception instance: raised by that call (provider error, timeout, ...);
- a callable `(messages) -> any of the above`: a reply computed from the prompt.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any, AsyncIterator, Callable, Iterator, Sequence

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, PrivateAttr

from relais.retry import ModelOutputError

ScriptItem = Any


class ScriptExhausted(RuntimeError):
    """The test asked the model more often than it scripted."""


class ScriptedChatModel(GenericFakeChatModel):
    """A fake chat model that replays a script and records what it was asked."""

    messages: Iterator[Any] = iter(())
    delay_s: float = 0.0
    repeat_last: bool = False
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _bound_tools: list[str] = PrivateAttr(default_factory=list)
    _last: Any = PrivateAttr(default=None)

    def __init__(self, script: Sequence[ScriptItem] | None = None, **kwargs: Any) -> None:
        super().__init__(messages=iter(list(script or [])), **kwargs)

    # --- introspection for tests --------------------------------------------------------
    @property
    def calls(self) -> list[list[BaseMessage]]:
        """Every prompt received, in order (a list of messages per call)."""
        return self._calls

    @property
    def bound_tools(self) -> list[str]:
        return self._bound_tools

    def prompt_texts(self) -> list[str]:
        """Each call's prompt flattened to text, for 'did the model see X' assertions."""
        return ["\n".join(str(m.content) for m in call) for call in self._calls]

    # --- script replay --------------------------------------------------------------------
    def _next_item(self, messages: list[BaseMessage]) -> AIMessage:
        self._calls.append(list(messages))
        try:
            item = next(self.messages)
            self._last = item
        except StopIteration:
            if not self.repeat_last or self._last is None:
                raise ScriptExhausted(f"script exhausted after {len(self._calls) - 1} calls") from None
            item = self._last
        if callable(item) and not isinstance(item, BaseModel):
            item = item(messages)
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, AIMessage):
            return item
        if isinstance(item, str):
            return AIMessage(content=item)
        if isinstance(item, dict):
            return AIMessage(content=json.dumps(item))
        if isinstance(item, BaseModel):
            return AIMessage(content=item.model_dump_json())
        raise TypeError(f"unsupported script item {item!r}")

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = self._next_item(messages)
        if self.delay_s:
            time.sleep(self.delay_s)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        message = self._next_item(messages)
        if self.delay_s:
            time.sleep(self.delay_s)
        for chunk in _chunks(message):
            if run_manager and not chunk.message.tool_call_chunks:
                run_manager.on_llm_new_token(str(chunk.message.content), chunk=chunk)
            yield chunk

    # Native async paths, like a real provider's: langchain's defaults would run the sync ones in
    # a worker thread, one thread hop per streamed token, which is not what we measure or test.
    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        message = self._next_item(messages)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        message = self._next_item(messages)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        for chunk in _chunks(message):
            if run_manager and not chunk.message.tool_call_chunks:
                await run_manager.on_llm_new_token(str(chunk.message.content), chunk=chunk)
            yield chunk

    # --- what the langchain fakes lack ------------------------------------------------------
    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> "ScriptedChatModel":
        """Records the tool names and returns the same model (the script decides calls)."""
        names = []
        for tool in tools:
            name = getattr(tool, "name", None) or getattr(tool, "__name__", None)
            if name is None and isinstance(tool, dict):
                name = tool.get("name") or tool.get("function", {}).get("name")
            names.append(str(name))
        self._bound_tools = names
        return self

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable:
        """Parses the reply (JSON content or the first tool call's args) into `schema`.

        Malformed JSON raises `ModelOutputError`; a wrong shape raises pydantic's
        `ValidationError` — both before anything reaches the caller's state.
        """

        def parse(message: AIMessage) -> Any:
            if message.tool_calls:
                data: Any = message.tool_calls[0]["args"]
            else:
                try:
                    data = json.loads(str(message.content))
                except json.JSONDecodeError as exc:
                    raise ModelOutputError(f"model reply is not valid JSON: {exc}") from exc
            if isinstance(schema, type) and issubclass(schema, BaseModel):
                parsed = schema.model_validate(data)
            else:
                parsed = data
            return {"raw": message, "parsed": parsed, "parsing_error": None} if include_raw else parsed

        return self | RunnableLambda(parse)

    @property
    def _llm_type(self) -> str:
        return "scripted-fake-chat-model"


def _chunks(message: AIMessage) -> Iterator[ChatGenerationChunk]:
    """A reply as a provider streams it: tool calls in one chunk, text word by word."""
    if message.tool_calls:
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content=str(message.content or ""),
                id=message.id,
                tool_call_chunks=[
                    {"name": c["name"], "args": json.dumps(c["args"]), "id": c.get("id"), "index": i}
                    for i, c in enumerate(message.tool_calls)
                ],
            )
        )
        return
    for piece in _split_keep_space(str(message.content)) or [""]:
        yield ChatGenerationChunk(message=AIMessageChunk(content=piece, id=message.id))


def _split_keep_space(text: str) -> list[str]:
    return [p for p in re.split(r"(\s)", text) if p != ""]


def tool_call(name: str, args: dict[str, Any], call_id: str = "call_1") -> AIMessage:
    """An AIMessage that calls one tool (a convenience for scripts)."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


def echo_last_user(prefix: str = "") -> Callable[[list[BaseMessage]], str]:
    """A script item that replies with the last human message (handy for routing tests)."""

    def reply(messages: list[BaseMessage]) -> str:
        humans = [m for m in messages if m.type == "human"]
        return prefix + (str(humans[-1].content) if humans else "")

    return reply
