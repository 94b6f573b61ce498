"""The shared fake model behaves like a chat model: tools, structured output, failures."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from relais.retry import ModelOutputError
from relais.testing import ScriptedChatModel, ScriptExhausted, tool_call


class Verdict(BaseModel):
    ok: bool
    why: str


def test_replays_records_and_exhausts() -> None:
    model = ScriptedChatModel(["one", "two"])
    assert model.invoke("first").content == "one"
    assert model.invoke("second").content == "two"
    assert model.prompt_texts() == ["first", "second"]
    with pytest.raises(ScriptExhausted):
        model.invoke("third")


def test_structured_output_validates() -> None:
    model = ScriptedChatModel([{"ok": True, "why": "fine"}, "not json", {"ok": "maybe"}, tool_call("Verdict", {"ok": False, "why": "tool"})])
    structured = model.with_structured_output(Verdict)
    assert structured.invoke("q") == Verdict(ok=True, why="fine")
    with pytest.raises(ModelOutputError):
        structured.invoke("q")
    with pytest.raises(ValidationError):
        structured.invoke("q")
    assert structured.invoke("q") == Verdict(ok=False, why="tool")


async def test_tools_errors_and_callables() -> None:
    model = ScriptedChatModel([TimeoutError("slow"), tool_call("meal_plan", {"diet": "vegan"}), lambda msgs: f"saw {len(msgs)}"])
    bound = model.bind_tools([{"name": "meal_plan"}])
    assert model.bound_tools == ["meal_plan"]
    with pytest.raises(TimeoutError):
        await bound.ainvoke("q")
    message = await bound.ainvoke("q")
    assert message.tool_calls[0]["args"] == {"diet": "vegan"}
    chunks = [c.content async for c in bound.astream("q")]
    assert "".join(chunks) == "saw 1"
