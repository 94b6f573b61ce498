"""Benchmark — what OpenTelemetry tracing costs a help-center turn.

One process, the demo knowledge base, the offline engine: `Orchestrator.process_question` on a
fixed set of help-center questions (retrieve → answer; orchestrator off, so no classifier: the
smallest real turn, where a fixed tracing cost weighs most). Three variants, interleaved round by
round in rotating order:

- bare: the tracing helpers replaced by identities (no instrumentation at all — the reference);
- off: the code as shipped with `OTEL_EXPORTER_OTLP_ENDPOINT` unset;
- on: an SDK provider with the batch processor and the real OTLP/HTTP exporter, posting to a
  collector served by this same process (its protobuf decoding is charged to "on" too).

Targets: on ≤ +5 % over off per turn (median of per-round ratios), off ≈ bare (≤ +1 %).
Run alone: `.venv/bin/python -m benchmarks.bench_tracing [--rounds 20] [--kb-data DIR]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

from assistant.settings import AssistantSettings
from benchmarks._common import REPO_ROOT, BenchResult, Check, median, run_main, temp_data_dir

TARGET_ON = 0.05
TARGET_OFF = 0.01
QUESTIONS = [
    "How much does the base plan cost?",
    "Can I freeze my membership?",
    "How is my health data protected?",
    "What are the opening hours?",
    "How do I cancel my subscription?",
]


def collector() -> tuple[Any, list[int]]:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route

    spans: list[int] = [0]

    async def traces(request: Any) -> Response:
        export = ExportTraceServiceRequest()
        export.ParseFromString(await request.body())
        spans[0] += sum(len(s.spans) for r in export.resource_spans for s in r.scope_spans)
        return Response(b"", media_type="application/x-protobuf")

    return Starlette(routes=[Route("/v1/traces", traces, methods=["POST"])]), spans


class Variants:
    """Switch the tracing module between bare, off and on inside one process."""

    def __init__(self, endpoint: str) -> None:
        from relais import tracing
        from relais.settings import Settings

        self.tracing = tracing
        self.originals = (tracing.span, tracing.traced, tracing.outgoing_headers)
        tracing.setup_tracing("relais-bench", Settings(otel_exporter_otlp_endpoint=endpoint))
        self.on_tracer = tracing._tracer

    def use(self, name: str) -> None:
        t = self.tracing
        t.span, t.traced, t.outgoing_headers = self.originals
        t._tracer = self.on_tracer if name == "on" else None
        if name == "bare":
            t.span = lambda name, **attributes: contextlib.nullcontext()
            t.traced = lambda name, events, **attributes: events
            t.outgoing_headers = lambda headers: headers


async def one_turn(orchestrator: Any, question: str) -> tuple[float, float]:
    """(CPU seconds of this process — all its threads, exporter and collector included —, wall seconds)."""
    from relais.events import TextChunk

    cpu, wall = time.process_time(), time.perf_counter()
    kinds = [type(e) async for e in orchestrator.process_question(question, None)]
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if TextChunk not in kinds:
        raise RuntimeError(f"no answer for {question!r}")
    return cpu, wall


def span_cost_us(variants: Variants, turns: int = 2000) -> dict[str, float]:
    """The span tree of one help-center turn with no work inside, per turn (µs), on and off."""
    t = variants.tracing
    out = {}
    for name in ("off", "on"):
        variants.use(name)

        async def tree() -> None:
            async def answer():
                yield 1

            async def turn():
                with t.span("retrieve"):
                    for child in ("dense", "bm25", "fusion"):
                        with t.span(child):
                            pass
                async for _ in t.traced("answer", answer()):
                    pass
                yield 1

            for _ in range(turns):
                async for _ in t.traced("receive", turn()):
                    pass

        started = time.process_time()
        asyncio.run(tree())
        out[name] = (time.process_time() - started) / turns * 1e6
    return out


def run(result: BenchResult, rounds: int, kb_data: Path | None) -> None:
    import shutil

    from assistant.orchestrator import Orchestrator
    from knowledge.ingest import ingest_folder
    from knowledge.settings import KnowledgeSettings
    from relais.retry import RetryPolicy
    from relais.serving import serve
    from relais.settings import Settings

    app, exported = collector()
    with temp_data_dir("relais-bench-tracing-") as data_dir, serve(app, lifespan="off") as endpoint:
        settings = AssistantSettings(enable_orchestrator=False).on(Settings(relais_data_dir=data_dir))
        knowledge = KnowledgeSettings(relais_kb_dir=REPO_ROOT / "data" / "knowledge").on(settings.kit)
        started = time.perf_counter()
        if kb_data is not None:  # an already ingested data dir of the demo KB (saves the encoding)
            shutil.copytree(kb_data, data_dir, dirs_exist_ok=True)
        ingest_folder(knowledge.relais_kb_dir, knowledge, show_progress=False)
        result.figures["preparation"] = f"ingest of the demo KB in {time.perf_counter() - started:.1f} s (not timed)"
        orchestrator = Orchestrator(settings=settings, model=None, model_resolved=True, retry=RetryPolicy.no_wait(1))
        variants = Variants(endpoint)
        names = ["bare", "off", "on"]
        cpu: dict[str, list[float]] = {n: [] for n in names}
        wall: dict[str, list[float]] = {n: [] for n in names}

        async def measure() -> None:
            for question in QUESTIONS:  # warm-up: encoder, BM25 index, caches
                for name in names:
                    variants.use(name)
                    await one_turn(orchestrator, question)
            for r in range(rounds):
                for q, question in enumerate(QUESTIONS):  # the same question under the three variants in a row
                    shift = (r + q) % 3
                    for name in names[shift:] + names[:shift]:
                        variants.use(name)
                        c, w = await one_turn(orchestrator, question)
                        cpu[name].append(c)
                        wall[name].append(w)

        asyncio.run(measure())
        micro = span_cost_us(variants)
        variants.use("on")
        variants.tracing.flush()
        variants.tracing.shutdown_tracing()

    def ratio(a: str, b: str, series: dict[str, list[float]]) -> float:
        return median([x / y for x, y in zip(series[a], series[b]) if y > 0])

    cpu_ms = {n: round(median(v) * 1000, 2) for n, v in cpu.items()}
    wall_ms = {n: round(median(v) * 1000, 2) for n, v in wall.items()}
    on_ratio, off_ratio = ratio("on", "off", cpu), ratio("off", "bare", cpu)
    result.figures["turn_cpu_ms_median"] = cpu_ms
    result.figures["turn_wall_ms_median"] = wall_ms
    result.figures["wall_ratio_on_off"] = round(ratio("on", "off", wall), 3)
    result.figures["wall_ratio_off_bare"] = round(ratio("off", "bare", wall), 3)
    result.figures["span_tree_us_per_turn"] = {k: round(v, 1) for k, v in micro.items()}
    result.figures["span_tree_share_of_turn_on"] = f"{(micro['on'] - micro['off']) / 1000 / cpu_ms['off'] * 100:.2f} %"
    result.figures["spans_received_by_collector"] = exported[0]
    result.checks.append(Check("help-center turn CPU, tracing on vs off", cpu_ms["on"], cpu_ms["off"], "ms",
                               ratio=on_ratio, target=f"<= {1 + TARGET_ON:.2f}x", ok=on_ratio <= 1 + TARGET_ON))
    result.checks.append(Check("help-center turn CPU, tracing off vs no instrumentation", cpu_ms["off"], cpu_ms["bare"],
                               "ms", ratio=off_ratio, target=f"<= {1 + TARGET_OFF:.2f}x", ok=off_ratio <= 1 + TARGET_OFF))
    result.notes.append(f"{rounds} rounds x {len(QUESTIONS)} questions; each question runs under the three variants "
                        "back to back (order rotated); ratios are medians of those per-question ratios, on the "
                        "process's CPU time (all threads: exporter and collector included), which a busy shared "
                        "machine disturbs less than wall time (also reported)")
    if exported[0] == 0:
        raise RuntimeError("tracing on exported nothing: the measurement is void")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--kb-data", type=Path, help="copy this already ingested data dir of the demo KB first")
    args = parser.parse_args(argv)
    return run_main("tracing", "Tracing overhead on a help-center turn: on / off / no instrumentation",
                    lambda r: run(r, args.rounds, args.kb_data))


if __name__ == "__main__":
    raise SystemExit(main())
