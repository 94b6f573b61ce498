"""A local stand-in for Mistral's chat completions API, served on loopback by the tests.

Why: the scripted model raises exceptions we built ourselves; this lets the *real*
`ChatMistralAI` client meet real HTTP failures (429, 500, a reply that never comes) and lets
the app and the coach service run "online" (a configured `MISTRAL_API_KEY`, `MISTRAL_BASE_URL`
pointing here) without any network, so their logs can be scanned for the key.

`POST /v1/chat/completions` answers like Mistral, as JSON or as SSE (`"stream": true`):
- with `tools` (a coach advisor): a tool call to the first tool, then — once the tool's result
  is the last message — a short text built from that result;
- without tools (the orchestrator's one classify-and-answer call): `ALTER` for a request to do
  something personal (a plan, a programme, a booking), else a help-center answer;
- queued `faults` ("429", "500", "timeout") are applied to the next requests, in order; a last
  user message containing `fail_marker` always gets a 500.
Every request body and its `Authorization` header are recorded.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

API_KEY = "sk-relais-test-3f9a1c7e5b2d40869e1f"  # a MISTRAL_API_KEY-like secret
HELP_CENTER_ANSWER = "From the help center: the Base plan costs $10 per month."
ALTER_WORDS = ("workout plan", "meal plan", "programme", "program", "book me", "réserve", "plan for me")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def _call_id() -> str:
    return "".join(random.choices(string.ascii_letters + string.digits, k=9))


@dataclass
class FakeMistral:
    faults: list[str] = field(default_factory=list)
    fail_marker: str = "boom"
    hang_s: float = 3.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str] = field(default_factory=list)

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        """The assistant message for this request: `{"content": ...}` or `{"tool_call": name}`."""
        messages = body.get("messages", [])
        last = messages[-1] if messages else {}
        if body.get("tools"):
            if last.get("role") == "tool":
                words = _text(last.get("content")).replace(",", ", ").split()
                return {"content": f"Here is your plan from {last.get('name', 'the tool')}: " + " ".join(words[:25])}
            return {"tool_call": body["tools"][0]["function"]["name"]}
        question = next((_text(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), "")
        if any(word in question.lower() for word in ALTER_WORDS):
            return {"content": "ALTER"}
        return {"content": HELP_CENTER_ANSWER}

    def app(self) -> Starlette:
        async def completions(request: Request) -> Response:
            body = await request.json()
            self.requests.append(body)
            self.authorizations.append(request.headers.get("authorization", ""))
            users = [_text(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user"]
            fault = self.faults.pop(0) if self.faults else None
            if users and self.fail_marker in users[-1]:
                fault = "500"
            if fault == "timeout":
                await asyncio.sleep(self.hang_s)
            elif fault in ("429", "500"):
                status = int(fault)
                kind = "rate_limited" if status == 429 else "internal_error"
                return JSONResponse({"object": "error", "message": kind.replace("_", " "), "type": kind, "code": status},
                                    status_code=status)
            message = self.reply(body)
            if body.get("stream"):
                return StreamingResponse(self._sse(body, message), media_type="text/event-stream")
            return JSONResponse(self._completion(body, message))

        return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])

    # --- wire formats ------------------------------------------------------------------------
    @staticmethod
    def _tool_calls(name: str) -> list[dict[str, Any]]:
        return [{"id": _call_id(), "type": "function", "index": 0, "function": {"name": name, "arguments": "{}"}}]

    def _completion(self, body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": message.get("content", "")}
        finish = "stop"
        if "tool_call" in message:
            msg["tool_calls"], finish = self._tool_calls(message["tool_call"]), "tool_calls"
        return {"id": "cmpl-fake", "object": "chat.completion", "model": body.get("model", "fake"),
                "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}

    async def _sse(self, body: dict[str, Any], message: dict[str, Any]):  # type: ignore[no-untyped-def]
        model = body.get("model", "fake")

        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            data = {"id": "cmpl-fake", "object": "chat.completion.chunk", "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            if finish:
                data["usage"] = {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
            return f"data: {json.dumps(data)}\n\n"

        if "tool_call" in message:
            yield chunk({"role": "assistant", "content": "", "tool_calls": self._tool_calls(message["tool_call"])},
                        "tool_calls")
        else:
            words = message["content"].split(" ")
            for i, word in enumerate(words):
                piece = word if i == len(words) - 1 else word + " "
                yield chunk({"role": "assistant", "content": piece} if i == 0 else {"content": piece})
                await asyncio.sleep(0)
            yield chunk({"content": ""}, "stop")
        yield "data: [DONE]\n\n"
