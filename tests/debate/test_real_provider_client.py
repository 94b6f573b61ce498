"""The debate through a real provider client (ChatMistralAI) against a local fake API server.

This exercises what the scripted model cannot: tool-call structured output parsed by the
provider integration, real HTTP errors (503) retried by our policy, a reply whose tool
arguments are not JSON, and the sampling settings reaching the wire.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import SystemMessage
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from debate import events as ev
from debate.runner import run_debate
from tests.debate.fakes import DebateScript, collect, fast_config
from tests.servers import serve

API_KEY = "sk-test-never-logged-0123456789"


def fake_mistral(script: DebateScript, requests: list[dict[str, Any]]) -> Starlette:
    """A /v1/chat/completions that answers each debate step with a tool call."""
    failures = {"503": 1, "bad_args": 1}

    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        requests.append(body)
        if failures["503"]:
            failures["503"] -= 1
            return JSONResponse({"message": "service unavailable"}, status_code=503)
        tool = body["tools"][0]["function"]["name"]
        messages = [SystemMessage(content=m["content"]) for m in body["messages"]]
        args = json.dumps(script(messages))
        if tool == "ThinkingOutput" and failures["bad_args"]:
            failures["bad_args"] -= 1
            args = args[: len(args) // 2]  # truncated JSON, as a cut-off reply would be
        call = {
            "id": "abcdefghi",
            "type": "function",
            "function": {"name": tool, "arguments": args},
        }
        return JSONResponse(
            {
                "id": "cmpl-1",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "", "tool_calls": [call]},
                        "finish_reason": "tool_calls",
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
            }
        )

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


@pytest.mark.slow
async def test_debate_over_http_with_provider_errors_and_a_truncated_reply(tmp_path: Path) -> None:
    from langchain_mistralai import ChatMistralAI

    script, requests = DebateScript(), []
    with serve(fake_mistral(script, requests)) as base_url:

        def factory(*, model_name: str | None, temperature: float, max_tokens: int) -> Any:
            return ChatMistralAI(
                api_key=API_KEY,
                endpoint=f"{base_url}/v1",
                model=model_name or "mistral-small-latest",
                temperature=temperature,
                max_tokens=max_tokens,
                max_retries=1,
                timeout=10,
            )

        config = fast_config(
            rounds=1, model_name="mistral-large-latest", temperature=0.7, thinking_budget=512
        )
        out = tmp_path / "run"
        events = await collect(
            run_debate(
                "Remote work beats the office", out_dir=out, config=config, model_factory=factory
            )
        )

    done = events[-1]
    assert isinstance(done, ev.DebateFinished), getattr(done, "message", done)
    retried = [e.error for e in events if isinstance(e, ev.RetryScheduled)]
    assert len(retried) == 2 and "HTTPStatusError" in retried[0]  # the 503, then the bad args
    assert done.metrics["retries"] == 2 and done.metrics["arguments_approved"] == 2
    published = json.loads((out / "shared_memory.json").read_text())["arguments"]
    # Pros's thinking was answered twice (truncated, then whole): the script numbers replies
    assert [a["argument"] for a in published] == [
        "pros argument r1 pass 2",
        "cons argument r1 pass 1",
    ]
    assert [
        e["attempt"] for e in json.loads((out / "pros" / "thinking.json").read_text())["entries"]
    ] == [1]
    assert {r["model"] for r in requests} == {"mistral-large-latest"}
    assert {r["temperature"] for r in requests} == {0.7}
    tools_and_budget = {(r["tools"][0]["function"]["name"], r["max_tokens"]) for r in requests}
    assert ("ThinkingOutput", 512) in tools_and_budget and (
        "CritiqueOutput",
        4096,
    ) in tools_and_budget
    for path in out.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".md", ".mmd"):
            assert API_KEY not in path.read_text()
