"""One trace per turn, across the hand-off: OpenTelemetry spans, exported over OTLP/HTTP.

Tracing is on only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (environment or `.env`): then each
process gets an SDK tracer provider with a batch exporter to `{endpoint}/v1/traces`. Unset,
nothing is built — no SDK provider, no exporter thread, no socket — and every helper here
returns its input or a null context, so the turn pays nothing.

The chatbot opens `receive` (the turn) → `retrieve` (`bm25`, `dense`, `fusion`) → `classify`
→ `answer` or `forward`; `forward` sends the W3C `traceparent` header with `POST /assistant`,
and the coach service continues that trace (`POST /assistant`, then one span per LangGraph node
— router, advisor, tools, human — through a LangChain callback handler).

Relais keeps its own provider instead of replacing OpenTelemetry's global one, so libraries
that bring their own instrumentation (Chainlit's Literal AI, traceloop) are left as they are.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from relais.settings import get_settings

log = logging.getLogger(__name__)

TRACER_NAME = "relais"
_propagator = TraceContextTextMapPropagator()  # W3C traceparent / tracestate only
_provider: Any = None  # opentelemetry.sdk.trace.TracerProvider once tracing is on
_tracer: trace.Tracer | None = None


def enabled() -> bool:
    return _tracer is not None


def setup_tracing(service_name: str, settings: Any = None, *, exporter: Any = None) -> bool:
    """Turn tracing on for this process if a collector is configured (idempotent).

    `exporter` (tests) replaces the OTLP exporter and is flushed span by span.
    """
    global _provider, _tracer
    if _tracer is not None:
        return True
    if exporter is None:
        if settings is None:
            settings = get_settings()
        endpoint = (settings.otel_exporter_otlp_endpoint or "").strip()
        if not endpoint:
            return False
        exporter = _otlp_exporter(endpoint, settings.otel_exporter_otlp_headers)
        batch = True
    else:
        batch = False
    # lazy: the SDK only when a collector is configured (its export module +0.14 s on `import coach.service`)
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider  # lazy: with the SDK
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor  # lazy: SDK

    provider = TracerProvider(resource=Resource.create({"service.name": service_name}))
    provider.add_span_processor(BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter))
    _provider, _tracer = provider, provider.get_tracer(TRACER_NAME)
    log.info("tracing on: service %s", service_name)
    return True


def _otlp_exporter(endpoint: str, headers: Any) -> Any:
    # lazy: the OTLP exporter (+0.95 s) only with OTEL_EXPORTER_OTLP_ENDPOINT
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    raw = headers.get_secret_value() if hasattr(headers, "get_secret_value") else (headers or "")
    pairs = dict(p.split("=", 1) for p in raw.split(",") if "=" in p)
    url = endpoint.rstrip("/")
    if not url.endswith("/v1/traces"):
        url += "/v1/traces"
    return OTLPSpanExporter(endpoint=url, headers={k.strip(): v.strip() for k, v in pairs.items()} or None)


def shutdown_tracing() -> None:
    """Flush what is buffered and turn tracing off (process exit, tests)."""
    global _provider, _tracer
    provider, _provider, _tracer = _provider, None, None
    if provider is not None:
        provider.shutdown()


def flush(timeout_ms: int = 5000) -> None:
    if _provider is not None:
        _provider.force_flush(timeout_ms)


# --- spans ------------------------------------------------------------------------------------
@contextlib.contextmanager
def span(name: str, **attributes: Any) -> Iterator[Any]:
    """A child of the current span, current while the block runs (nothing when tracing is off).

    Only for blocks without `yield` in between: for streams use `traced`."""
    if _tracer is None:
        yield None
        return
    with _tracer.start_as_current_span(name, attributes=_clean(attributes)) as current:
        yield current


def traced(name: str, events: AsyncIterator[Any], **attributes: Any) -> AsyncIterator[Any]:
    """`events` inside a span that lasts until the stream ends; returned as is when tracing is off.

    The span is made current only while the stream computes its next item, never across a
    `yield` to the consumer, so contexts are always attached and detached in the same step.
    """
    if _tracer is None:
        return events
    return _traced(_tracer.start_span(name, attributes=_clean(attributes)), events)


async def _traced(current: Any, events: AsyncIterator[Any]) -> AsyncIterator[Any]:
    ctx = trace.set_span_in_context(current)
    try:
        while True:
            token = otel_context.attach(ctx)
            try:
                item = await anext(events)  # type: ignore[call-overload]
            except StopAsyncIteration:
                break
            except BaseException as exc:
                _record_error(current, exc)
                raise
            finally:
                otel_context.detach(token)
            yield item
    finally:
        closer = getattr(events, "aclose", None)
        if closer is not None:
            token = otel_context.attach(ctx)
            try:
                await closer()
            finally:
                otel_context.detach(token)
        current.end()


def _record_error(current: Any, exc: BaseException) -> None:
    if isinstance(exc, (GeneratorExit, StopAsyncIteration)):
        return
    current.record_exception(exc)
    current.set_status(Status(StatusCode.ERROR, type(exc).__name__))


def set_attributes(**attributes: Any) -> None:
    """Add attributes to the current span (no-op when tracing is off)."""
    if _tracer is not None:
        trace.get_current_span().set_attributes(_clean(attributes))


def _clean(attributes: Mapping[str, Any]) -> dict[str, Any]:
    return {f"relais.{k}" if "." not in k else k: v for k, v in attributes.items() if v is not None}


# --- propagation across the hand-off ----------------------------------------------------------
def outgoing_headers(headers: Mapping[str, str]) -> Mapping[str, str]:
    """`headers` plus `traceparent` for the current span (a copy); the same object when off."""
    if _tracer is None:
        return headers
    carrier = dict(headers)
    _propagator.inject(carrier)
    return carrier


def server_span(name: str, headers: Mapping[str, str], **attributes: Any) -> Any:
    """A span continuing the caller's trace from its `traceparent` header, not yet current
    (wrap the response stream with `traced_in`); None when tracing is off."""
    if _tracer is None:
        return None
    parent = _propagator.extract({k.lower(): v for k, v in headers.items()})
    return _tracer.start_span(name, context=parent, kind=trace.SpanKind.SERVER, attributes=_clean(attributes))


def traced_in(current: Any, events: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """`events` run inside an already started span (ended with the stream); as is if None."""
    return events if current is None else _traced(current, events)


# --- LangGraph nodes as spans -----------------------------------------------------------------
def graph_config(config: dict[str, Any]) -> dict[str, Any]:
    """`config` for a graph run, with a callback that turns each node and tool into a span
    (children of the current span). Returned unchanged when tracing is off."""
    if _tracer is None:
        return config
    callbacks = list(config.get("callbacks") or [])
    return {**config, "callbacks": [*callbacks, _graph_spans(_tracer)]}


def _graph_spans(tracer: trace.Tracer) -> Any:
    class GraphSpans(BaseCallbackHandler):
        """LangGraph runs → spans: a node run (its name is the node's) and every tool call."""

        run_inline = True

        def __init__(self) -> None:
            self.root = otel_context.get_current()  # the span that was current when the run began
            self.spans: dict[Any, Any] = {}
            self.parents: dict[Any, Any] = {}

        def _parent_context(self, run_id: Any) -> Any:
            parent = self.parents.get(run_id)
            while parent is not None:
                if parent in self.spans:
                    return trace.set_span_in_context(self.spans[parent])
                parent = self.parents.get(parent)
            return self.root

        def _start(self, run_id: Any, name: str, attributes: dict[str, Any]) -> None:
            self.spans[run_id] = tracer.start_span(name, context=self._parent_context(run_id), attributes=attributes)

        def _end(self, run_id: Any, error: BaseException | None = None) -> None:
            self.parents.pop(run_id, None)
            current = self.spans.pop(run_id, None)
            if current is None:
                return
            if error is not None:
                if type(error).__name__ in ("GraphInterrupt", "NodeInterrupt", "ParentCommand"):
                    current.set_attribute("langgraph.interrupted", True)  # waiting on a person
                else:
                    _record_error(current, error)
            current.end()

        def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: Any, parent_run_id: Any = None,
                           metadata: dict[str, Any] | None = None, **kwargs: Any) -> None:
            self.parents[run_id] = parent_run_id
            node = (metadata or {}).get("langgraph_node")
            if parent_run_id is None and not trace.get_current_span(self.root).get_span_context().is_valid:
                # no caller span (the in-process Coach profile): the graph run is the trace's root
                self._start(run_id, "graph", {"langgraph.graph": str(kwargs.get("name") or "graph")})
            elif node and kwargs.get("name") == node:
                self._start(run_id, str(node), {"langgraph.node": str(node),
                                                "langgraph.step": int((metadata or {}).get("langgraph_step") or 0)})

        def on_chain_end(self, outputs: Any, *, run_id: Any, **kwargs: Any) -> None:
            self._end(run_id)

        def on_chain_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
            self._end(run_id, error)

        def on_tool_start(self, serialized: Any, input_str: str, *, run_id: Any, parent_run_id: Any = None,
                          **kwargs: Any) -> None:
            self.parents[run_id] = parent_run_id
            name = kwargs.get("name") or (serialized or {}).get("name") or "tool"
            self._start(run_id, "tool", {"tool.name": str(name)})

        def on_tool_end(self, output: Any, *, run_id: Any, **kwargs: Any) -> None:
            self._end(run_id)

        def on_tool_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
            self._end(run_id, error)

    return GraphSpans()


__all__ = [
    "enabled", "flush", "graph_config", "outgoing_headers", "server_span", "set_attributes", "setup_tracing",
    "shutdown_tracing", "span", "traced", "traced_in",
]
