"""The real coach service (`coach.service.create_app`, `CoachRunner`, the SQLite/Postgres
checkpointer from settings) answering with a scripted chat model that streams slowly.

Why: with the offline engine a coach turn finishes in milliseconds, so "kill -9 while the
answer streams" could not be aimed. Here each advisor calls its one tool, then writes its reply
a token every `--delay` seconds; a test kills the process after the first tokens arrived, i.e.
while the graph is really in the middle of the advisor node.

    python -m tests.resilience.slow_agent --port 8123 [--delay 0.03]   (env as for `relais agent serve`)
"""

from __future__ import annotations

import argparse
import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.outputs import ChatGenerationChunk

from relais.testing import ScriptedChatModel, tool_call

REPLY_WORDS = 60


class SlowStreamingModel(ScriptedChatModel):
    """`ScriptedChatModel` that pauses before each streamed chunk."""

    token_delay_s: float = 0.03

    async def _astream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                       run_manager: Any = None, **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        async for chunk in super()._astream(messages, stop, run_manager, **kwargs):
            await asyncio.sleep(self.token_delay_s)
            yield chunk


def coach_model(delay_s: float) -> SlowStreamingModel:
    """Call the bound tool (its arguments come from the conversation), then describe its result."""
    model = SlowStreamingModel(token_delay_s=delay_s, repeat_last=True)

    def reply(messages: list[BaseMessage]) -> Any:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            words = str(last.content).replace(",", ", ").split()
            return f"Plan from {last.name}: " + " ".join(words[:REPLY_WORDS])
        return tool_call(model.bound_tools[-1], {}, call_id=f"call_{uuid.uuid4().hex[:12]}")

    model.messages = iter([reply])
    return model


def main() -> None:
    import uvicorn

    from coach.runner import CoachRunner
    from coach.service import create_app
    from coach.settings import CoachSettings
    from relais.logging import configure_logging
    from relais.settings import get_settings, secret_values

    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay", type=float, default=0.03)
    args = parser.parse_args()
    settings = get_settings()
    configure_logging(settings.relais_log_level, secret_values(settings))
    app = create_app(lambda: CoachRunner.open(model=coach_model(args.delay), settings=settings),
                     settings=CoachSettings().on(settings))
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")


if __name__ == "__main__":
    main()
