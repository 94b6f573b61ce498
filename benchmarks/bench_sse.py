"""Benchmark 3 — SSE relay: our external-agent client vs a direct httpx + httpx-sse client.

One local agent (Starlette + sse-starlette under uvicorn on 127.0.0.1, in a background thread)
answers `POST /assistant` with N `message` events (`{"content": "..."}`) then `done`. Four
clients read the same stream, in rotating order each round:

- reference: one pooled `httpx.AsyncClient` + `httpx_sse.aconnect_sse`, decoding each event's
  JSON with the standard library to get its text (the least any consumer must do); the same
  with orjson (our decoder) is reported alongside, not judged;
- `ExternalAgentClient.stream` (typed events), built once like the app does;
- `forward_to_external_agent` (the seed's string surface, through the process-wide client).

First-token latency = call → first text chunk; throughput = events / (call → stream exhausted).
Targets: added first-token latency p50 < 5 ms, throughput >= 0.95x the reference; both judged on
per-round pairs (median of ours - reference, median of reference time / our time).

Run alone: `.venv/bin/python -m benchmarks.bench_sse [--events 1000 --rounds 30]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

from assistant.settings import AssistantSettings
from benchmarks._common import (
    REPO_ROOT,
    BenchResult,
    Check,
    free_port,
    median,
    percentile,
    run_main,
    serve,
)

TARGET_ADDED_FIRST_TOKEN_MS = 5.0
TARGET_THROUGHPUT_RATIO = 0.95
# Our client decodes event data with orjson; a direct client with orjson too shows how much of
# the margin is the decoder (reported, not judged: the reference is plain httpx-sse).
ORJSON_REFERENCE = "direct httpx-sse + orjson"


def agent_app(events: int) -> Any:
    """A minimal external agent that streams `events` message events, then `done`."""
    from sse_starlette import EventSourceResponse
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def assistant(request: Request) -> EventSourceResponse:
        await request.json()

        async def stream() -> AsyncIterator[dict[str, str]]:
            for i in range(events):
                yield {"event": "message", "data": json.dumps({"content": f"token{i} "})}
            yield {"event": "done", "data": "{}"}

        return EventSourceResponse(stream())

    async def health(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    return Starlette(routes=[Route("/assistant", assistant, methods=["POST"]), Route("/health", health)])


Reader = Callable[[], Awaitable[tuple[float, float, int]]]


async def timed(stream: AsyncIterator[Any], is_text: Callable[[Any], bool]) -> tuple[float, float, int]:
    """(first-token s, total s, text events) for one already-created async iterator."""
    started = time.perf_counter()
    first = None
    count = 0
    async for item in stream:
        if is_text(item):
            if first is None:
                first = time.perf_counter() - started
            count += 1
    total = time.perf_counter() - started
    return (first if first is not None else total), total, count


async def measure(url: str, events: int, rounds: int, warmup: int = 3) -> dict[str, dict[str, list[float]]]:
    import httpx
    from httpx_sse import aconnect_sse

    from assistant import external_agent as ea
    from relais.events import TextChunk
    from relais.settings import clear_settings_caches

    body = {"message": "bench", "user_id": "bench", "conversation_history": []}
    direct_http = httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=5.0))
    client = ea.ExternalAgentClient(AssistantSettings(external_agent_url=url))
    os.environ["EXTERNAL_AGENT_URL"] = url  # forward_to_external_agent reads the settings
    clear_settings_caches()

    async def direct() -> AsyncIterator[str]:
        # read to the end of the body (it ends right after `done`) so the pooled connection
        # is reused, as our client does; returning at `done` would force a new connection
        async with aconnect_sse(direct_http, "POST", url + "/assistant", json=body) as source:
            async for sse in source.aiter_sse():
                if sse.event == "message":
                    yield json.loads(sse.data)["content"]

    async def direct_orjson() -> AsyncIterator[str]:
        import orjson

        async with aconnect_sse(direct_http, "POST", url + "/assistant", json=body) as source:
            async for sse in source.aiter_sse():
                if sse.event == "message":
                    yield orjson.loads(sse.data)["content"]

    readers: dict[str, Reader] = {
        "direct httpx-sse": lambda: timed(direct(), lambda _: True),
        ORJSON_REFERENCE: lambda: timed(direct_orjson(), lambda _: True),
        "ExternalAgentClient.stream": lambda: timed(
            client.stream("bench", "bench", []), lambda e: isinstance(e, TextChunk)),
        "forward_to_external_agent": lambda: timed(
            ea.forward_to_external_agent("bench", "bench", []), lambda _: True),
    }
    samples: dict[str, dict[str, list[float]]] = {k: {"first": [], "total": []} for k in readers}
    names = list(readers)
    try:
        for r in range(warmup + rounds):
            order = names[r % len(names):] + names[: r % len(names)]  # rotate who goes first
            for name in order:
                first, total, count = await readers[name]()
                if count != events:
                    raise RuntimeError(f"{name} received {count} text events, expected {events}")
                if r >= warmup:
                    samples[name]["first"].append(first)
                    samples[name]["total"].append(total)
    finally:
        await direct_http.aclose()
        await client.aclose()
        await ea.aclose_client()
    return samples


@contextlib.contextmanager
def serve_in_process(events: int) -> Iterator[str]:
    """The same agent app in its own Python process (no GIL shared with the clients)."""
    import subprocess
    import sys

    import httpx

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks.bench_sse", "--serve-only", str(port),
                             "--events", str(events)], cwd=REPO_ROOT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(url + "/health", timeout=1)
                break
            except httpx.HTTPError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the agent server process did not start") from None
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def run(result: BenchResult, events: int = 1000, rounds: int = 30, server: str = "thread") -> None:
    server_cm = serve(agent_app(events)) if server == "thread" else serve_in_process(events)
    with server_cm as url:
        samples = asyncio.run(measure(url, events, rounds))
    ref = samples["direct httpx-sse"]
    ref_first = median(ref["first"]) * 1000
    ref_rate = events / median(ref["total"])
    for name, data in samples.items():
        first_p50, first_p95 = median(data["first"]) * 1000, percentile(data["first"], 95) * 1000
        rate = events / median(data["total"])
        result.figures[name] = (f"first token p50 {first_p50:.2f} ms, p95 {first_p95:.2f} ms; "
                                f"{rate:,.0f} events/s (median stream {median(data['total']) * 1000:.0f} ms)")
        if name == "direct httpx-sse":
            continue
        if name == ORJSON_REFERENCE:
            ratio = median([r / o for o, r in zip(data["total"], ref["total"])])
            result.checks.append(Check(f"{name}: throughput (info)", rate, ref_rate, "ev/s", ratio=ratio))
            continue
        # paired by round (same moment, same machine load): median of per-round differences/ratios
        added = median([(o - r) * 1000 for o, r in zip(data["first"], ref["first"])])
        ratio = median([r / o for o, r in zip(data["total"], ref["total"])])
        result.checks.append(Check(f"{name}: first token p50", first_p50, ref_first, "ms", delta=added,
                                   target=f"+< {TARGET_ADDED_FIRST_TOKEN_MS:g} ms",
                                   ok=added < TARGET_ADDED_FIRST_TOKEN_MS))
        result.checks.append(Check(f"{name}: throughput", rate, ref_rate, "ev/s", ratio=ratio,
                                   target=f">= {TARGET_THROUGHPUT_RATIO}x", ok=ratio >= TARGET_THROUGHPUT_RATIO))
    where = ("a uvicorn thread of this process (shares the GIL with the clients)" if server == "thread"
             else "its own process (--server process)")
    result.notes.append(f"{events} message events + done per stream, {rounds} rounds after 3 warm-up, "
                        f"client order rotated each round; agent server in {where}")
    result.notes.append("delta and ratio are medians of per-round pairs (ours vs reference in the same "
                        "round), steadier on a shared machine than a ratio of two medians")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--server", choices=["thread", "process"], default="thread",
                        help="agent server in a background thread of this process (default) or in its own process")
    parser.add_argument("--serve-only", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_only:
        import uvicorn

        uvicorn.run(agent_app(args.events), host="127.0.0.1", port=args.serve_only, log_level="warning")
        return 0
    return run_main("sse", "3. SSE relay: ExternalAgentClient / forward_to_external_agent vs direct httpx-sse",
                    lambda r: run(r, args.events, args.rounds, args.server))


if __name__ == "__main__":
    raise SystemExit(main())
