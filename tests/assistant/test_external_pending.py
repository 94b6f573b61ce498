"""The chatbot's side of the pending-prompt protocol, against the real coach service (uvicorn):
interrupt ids read from SSE, `GET /threads/{id}/pending` read back, 409 → a localised note, and an
agent without the endpoint (404) → "cannot tell", never an error."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from assistant.external_agent import ExternalAgentClient
from assistant.modes import ALTER
from assistant.orchestrator import Orchestrator
from assistant.settings import AssistantSettings
from coach.runner import CoachRunner
from coach.service import create_app
from coach.settings import CoachSettings
from relais.events import ErrorEvent, InterruptEvent
from relais.settings import Settings
from tests.servers import serve

pytestmark = pytest.mark.slow

TOKEN = "tok-client-pending-987654"


async def collect(client: ExternalAgentClient, text: str, thread: str, interrupt_id: str | None = None) -> list:
    return [e async for e in client.stream(text, "alice", [], thread_id=thread, interrupt_id=interrupt_id)]


async def test_ids_pending_and_conflict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app(lambda: CoachRunner.open(model=None, checkpoint_target=str(tmp_path / "cp.db")),
                     CoachSettings().on(Settings(external_agent_token=TOKEN)))
    with serve(app, ready_path="/health") as base:
        client = ExternalAgentClient(AssistantSettings(external_agent_url=base).on(Settings(external_agent_token=TOKEN)))
        bob = ExternalAgentClient(AssistantSettings(external_agent_url=base).on(Settings(external_agent_token=TOKEN)))
        try:
            first = [e for e in await collect(client, "suggest a workout plan", "th") if isinstance(e, InterruptEvent)][0]
            assert first.interrupt_id and "Vegetarian" in first.choices
            found = await client.pending("th", "alice")
            assert found.supported and found.event is not None and found.event.interrupt_id == first.interrupt_id
            assert (await client.pending("th-unknown", "alice")).event is None
            assert not (await bob.pending("th", "bob")).supported  # 403: not bob's thread
            await collect(client, "Vegetarian", "th", interrupt_id=first.interrupt_id)
            again = await collect(client, "Vegetarian", "th", interrupt_id=first.interrupt_id)
            errors = [e for e in again if isinstance(e, ErrorEvent)]
            assert [e.code for e in errors] == ["conflict"] and "already answered" in errors[0].message
            later = (await client.pending("th", "alice")).event
            assert later is not None and later.interrupt_id != first.interrupt_id
            # the orchestrator relays the clicked prompt's id on an ALTER thread (stale → conflict)
            from assistant.external_agent import aclose_client
            from assistant.settings import assistant_settings
            from relais.settings import clear_settings_caches

            for key, value in {"EXTERNAL_AGENT_URL": base, "EXTERNAL_AGENT_TOKEN": TOKEN, "ENABLE_ORCHESTRATOR": "true"}.items():
                monkeypatch.setenv(key, value)
            clear_settings_caches()
            orchestrator = Orchestrator(settings=assistant_settings())
            relayed = [e async for e in orchestrator.process_question(
                "Vegan", ALTER, user_id="alice", thread_id="th", interrupt_id=first.interrupt_id)]
            assert [e.code for e in relayed if isinstance(e, ErrorEvent)] == ["conflict"]
            assert (await client.pending("th", "alice")).event.interrupt_id == later.interrupt_id
            await aclose_client()
        finally:
            await client.aclose()
            await bob.aclose()


async def test_an_agent_without_the_endpoint_cannot_tell() -> None:
    async def assistant(request):  # noqa: ANN001 - a minimal seed-style agent
        return JSONResponse({"response": "hello"})

    with serve(Starlette(routes=[Route("/assistant", assistant, methods=["POST"])])) as base:
        client = ExternalAgentClient(AssistantSettings(external_agent_url=base))
        try:
            found = await client.pending("any", "alice")
        finally:
            await client.aclose()
    assert not found.supported and found.event is None
