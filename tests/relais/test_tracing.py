"""Tracing is off unless a collector is configured: then nothing is built and nothing connects."""

from __future__ import annotations

import socket

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from relais import tracing
from relais.settings import Settings


@pytest.fixture(autouse=True)
def _tracing_off():
    tracing.shutdown_tracing()
    yield
    tracing.shutdown_tracing()


async def _numbers():
    for i in range(3):
        yield i


async def test_unset_endpoint_builds_nothing_and_opens_no_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("tracing opened a socket")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert tracing.setup_tracing("relais-test", Settings(otel_exporter_otlp_endpoint="  ")) is False
    assert not tracing.enabled()
    stream = _numbers()
    assert tracing.traced("receive", stream) is stream  # no wrapper, no cost
    headers = {"Accept": "text/event-stream"}
    assert tracing.outgoing_headers(headers) is headers
    with tracing.span("retrieve") as current:
        assert current is None
    assert tracing.graph_config({"configurable": {}}) == {"configurable": {}}
    assert [i async for i in stream] == [0, 1, 2]


async def test_spans_nest_across_a_stream_and_propagate_w3c() -> None:
    exporter = InMemorySpanExporter()
    assert tracing.setup_tracing("relais-test", exporter=exporter)

    async def inner():
        with tracing.span("retrieve"):
            with tracing.span("bm25"):
                pass
        yield tracing.outgoing_headers({})
        yield "second"

    items = [item async for item in tracing.traced("receive", inner(), thread_id="t1")]
    assert "traceparent" in items[0]
    spans = {s.name: s for s in exporter.get_finished_spans()}
    assert set(spans) == {"receive", "retrieve", "bm25"}
    assert spans["bm25"].parent.span_id == spans["retrieve"].context.span_id
    assert spans["retrieve"].parent.span_id == spans["receive"].context.span_id
    assert spans["receive"].parent is None and spans["receive"].attributes["relais.thread_id"] == "t1"
    version, trace_id, parent_id, _ = items[0]["traceparent"].split("-")
    assert (version, int(trace_id, 16), int(parent_id, 16)) == ("00", spans["receive"].context.trace_id,
                                                                 spans["receive"].context.span_id)
    server = tracing.server_span("POST /assistant", {"Traceparent": items[0]["traceparent"]})
    server.end()
    assert server.context.trace_id == spans["receive"].context.trace_id


async def test_a_failing_stream_ends_its_span_with_the_error() -> None:
    exporter = InMemorySpanExporter()
    tracing.setup_tracing("relais-test", exporter=exporter)

    async def broken():
        yield 1
        raise RuntimeError("agent down")

    with pytest.raises(RuntimeError):
        async for _ in tracing.traced("forward", broken()):
            pass
    (forward,) = exporter.get_finished_spans()
    assert forward.status.status_code.name == "ERROR" and forward.events[0].name == "exception"


def test_graph_nodes_become_spans_under_one_root() -> None:
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict):
        n: int

    builder = StateGraph(State)
    builder.add_node("router", lambda state: {"n": state["n"] + 1})
    builder.add_node("advisor", lambda state: {"n": state["n"] * 2})
    builder.add_edge(START, "router")
    builder.add_edge("router", "advisor")
    builder.add_edge("advisor", END)
    graph = builder.compile()
    exporter = InMemorySpanExporter()
    tracing.setup_tracing("relais-test", exporter=exporter)
    assert graph.invoke({"n": 1}, tracing.graph_config({})) == {"n": 4}
    spans = {s.name: s for s in exporter.get_finished_spans()}
    assert set(spans) == {"graph", "router", "advisor"}  # no caller span: the graph run is the root
    assert spans["graph"].parent is None
    assert {spans["router"].parent.span_id, spans["advisor"].parent.span_id} == {spans["graph"].context.span_id}
