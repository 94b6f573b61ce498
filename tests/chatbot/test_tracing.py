"""One trace per hand-off turn: the orchestrator's spans and the coach service's spans.

1. In memory: a real turn on the demo knowledge base, classified ALTER (offline classifier) and
   forwarded over real HTTP to the coach service (uvicorn on 127.0.0.1, same process, so one
   in-memory exporter sees both sides): the span tree is asserted.
2. Over the wire: a real OTLP/HTTP receiver (starlette, protobuf decoded) gets the spans of this
   process and of a separate `relais agent serve` process, under one trace id.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from assistant.external_agent import ExternalAgentClient
from assistant.orchestrator import Orchestrator
from assistant.settings import AssistantSettings
from coach.runner import CoachRunner
from coach.service import create_app
from coach.settings import CoachSettings
from relais import tracing
from relais.events import InterruptEvent, ModeEvent
from relais.retry import RetryPolicy
from relais.serving import serve
from relais.settings import Settings
from tests.chainlit_driver import agent_server
from tests.demo_index import cache_root_for, ingested_data_dir

pytestmark = pytest.mark.slow

HANDOFF = "Build muscle, lose fat — suggest a workout plan"


@pytest.fixture(autouse=True)
def _tracing_off() -> Iterator[None]:
    tracing.shutdown_tracing()
    yield
    tracing.shutdown_tracing()


def _orchestrator(settings: Settings) -> Orchestrator:
    return Orchestrator(settings=settings, model=None, model_resolved=True, retry=RetryPolicy.no_wait(1),
                        agent_client=ExternalAgentClient(settings=settings))


async def test_span_tree_of_a_handoff_turn(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    data_dir = ingested_data_dir(tmp_path / "data", cache_root_for(tmp_path_factory))
    exporter = InMemorySpanExporter()
    tracing.setup_tracing("relais-test", exporter=exporter)
    agent_app = create_app(lambda: CoachRunner.open(model=None, checkpoint_target=str(tmp_path / "coach.db")),
                           CoachSettings().on(Settings(relais_data_dir=data_dir)))
    with serve(agent_app, ready_path="/health") as agent_url:
        settings = AssistantSettings(enable_orchestrator=True, external_agent_url=agent_url).on(Settings(relais_data_dir=data_dir))
        events = [e async for e in _orchestrator(settings).process_question(HANDOFF, None, thread_id="trace-thread")]
        assert ModeEvent("ALTER") in events and any(isinstance(e, InterruptEvent) for e in events)
        await asyncio.sleep(0.2)  # the service ends its span once the response stream is closed

    spans = exporter.get_finished_spans()
    by_id = {s.context.span_id: s for s in spans}
    children: dict[str, list[str]] = defaultdict(list)
    for s in spans:
        if s.parent is not None and s.parent.span_id in by_id:
            children[by_id[s.parent.span_id].name].append(s.name)
    (root,) = [s for s in spans if s.parent is None]
    assert root.name == "receive"
    assert {s.context.trace_id for s in spans} == {root.context.trace_id}, "one trace for the whole turn"
    assert children["receive"] == ["retrieve", "classify", "forward"]  # in the order they ended
    assert sorted(children["retrieve"]) == ["bm25", "dense", "fusion"]
    assert children["forward"] == ["POST /assistant"]
    service = next(s for s in spans if s.name == "POST /assistant")
    assert service.kind.name == "SERVER" and service.parent.is_remote  # continued from the traceparent header
    nodes = children["POST /assistant"]
    assert nodes[0] == "router" and nodes[-1] == "human", nodes  # router → advisor ⇄ tool node → human
    assert "workout_advisor" in nodes and "workout_tool" in nodes, nodes
    tool_parents = [by_id[s.parent.span_id].name for s in spans if s.name == "tool"]
    assert tool_parents and all(p in nodes for p in tool_parents)
    human = next(s for s in spans if s.name == "human")
    assert human.attributes.get("langgraph.interrupted") is True  # waits on the user, not an error
    assert human.status.status_code.name != "ERROR"


# --- a real OTLP/HTTP collector -----------------------------------------------------------------
def _receiver() -> tuple[object, dict[bytes, list[tuple[str, str]]]]:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
        ExportTraceServiceResponse,
    )
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    received: dict[bytes, list[tuple[str, str]]] = defaultdict(list)

    async def traces(request: Request) -> Response:
        assert request.headers["content-type"] == "application/x-protobuf"
        export = ExportTraceServiceRequest()
        export.ParseFromString(await request.body())
        for resource_spans in export.resource_spans:
            service = next(a.value.string_value for a in resource_spans.resource.attributes if a.key == "service.name")
            for scope in resource_spans.scope_spans:
                for s in scope.spans:
                    received[s.trace_id].append((service, s.name))
        return Response(ExportTraceServiceResponse().SerializeToString(), media_type="application/x-protobuf")

    return Starlette(routes=[Route("/v1/traces", traces, methods=["POST"])]), received


async def test_both_processes_export_one_trace_over_otlp_http(tmp_path: Path) -> None:
    app, received = _receiver()
    with serve(app, lifespan="off") as collector:
        otel = {"OTEL_EXPORTER_OTLP_ENDPOINT": collector, "OTEL_BSP_SCHEDULE_DELAY": "100"}
        agent = agent_server(tmp_path / "agent-data", tmp_path, **otel).start()
        try:
            settings = AssistantSettings(enable_orchestrator=True, external_agent_url=agent.url).on(Settings(relais_data_dir=tmp_path / "data", otel_exporter_otlp_endpoint=collector))
            assert tracing.setup_tracing("relais-chatbot", settings.kit)
            # an ALTER thread goes straight to the agent (no knowledge base needed)
            events = [e async for e in _orchestrator(settings).process_question(HANDOFF, "ALTER", thread_id="otlp-thread")]
            assert any(isinstance(e, InterruptEvent) for e in events)
            tracing.flush()
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                services = {trace_id: {svc for svc, _ in spans} for trace_id, spans in received.items()}
                if any(found >= {"relais-chatbot", "relais-coach"} for found in services.values()):
                    break
                await asyncio.sleep(0.1)
        finally:
            agent.stop()
    (trace_id,) = [t for t, spans in received.items() if {svc for svc, _ in spans} >= {"relais-chatbot", "relais-coach"}]
    names = set(received[trace_id])
    assert {("relais-chatbot", "receive"), ("relais-chatbot", "forward"), ("relais-coach", "POST /assistant"),
            ("relais-coach", "router"), ("relais-coach", "human")} <= names
    assert len(trace_id) == 16 and len(received) == 1, "every span of the turn is in that one trace"
