"""Benchmark 10 — fifty simultaneous conversations through the real app, and where its time goes.

The load test's mix (`tests/load/test_concurrency.py`), all started at once: help-center
conversations and coach hand-offs through Chainlit's socket.io as a browser does, and coach
threads straight on the agent service's SSE route, in English and French, two turns each.
The app runs as shipped (warm start on, orchestrator on, SQLite, its agent service); timing
starts once `GET /relais/ready` says ready. Per kind of turn: p50/p95 and turns/s; then what was
persisted is checked (zero lost, duplicated or cross-talking messages). Both servers run under
`benchmarks.app_profile`: a stack sampler (busy threads per kind, top functions) and a count of
SQLite statements per turn, reset when the conversations start, printed as the profile summary.

`--short`: 20 conversations (4 help center, 4 coach through the app, 12 coach over SSE).
Targets (issue 28): p95 <= 5 s on one instance. Three instances behind nginx: `--nginx`
(PostgreSQL, a Chroma server and nginx as `scripts/scale-tests.sh` starts them; target 8 s).
Run alone: `.venv/bin/python -m benchmarks.bench_load [--short]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._common import REPO_ROOT, BenchResult, Check, percentile, run_main
from benchmarks.app_profile import format_summary
from benchmarks.bench_app_answers import cache_root, wait_ready

TARGET_P95_S = 5.0
MIX = {"full": (8, 8, 34), "short": (4, 4, 12)}  # help center, coach via the app, coach over SSE
RUN_TIMEOUT_S = 600.0


def profiled(server: Any, out: Path) -> None:
    """Run `server` (a `ServerProcess` of `python -m MODULE ...`) under `benchmarks.app_profile`."""
    python, rest = server.args[0], server.args[1:]
    server.args = [python, "-m", "benchmarks.app_profile", str(out), *rest]
    paths = [str(REPO_ROOT), *filter(None, [server.env.get("PYTHONPATH")])]
    server.env = {**server.env, "PYTHONPATH": os.pathsep.join(paths)}


def start_profiles(servers: list[Any]) -> None:
    for server in servers:
        os.kill(server.proc.pid, signal.SIGUSR1)  # the measurement starts with the conversations


def read_profile(out: Path) -> dict[str, Any]:
    time.sleep(2.5)  # written every 2 s
    return json.loads(out.read_text())


async def run_mix(target: Any, mix: tuple[int, int, int]) -> tuple[Any, float, list[str]]:
    import httpx

    from tests.load.test_concurrency import Results, conversation_mix

    results = Results()
    direct = mix[2]
    limits = httpx.Limits(max_connections=direct * 2, max_keepalive_connections=direct)
    async with httpx.AsyncClient(timeout=httpx.Timeout(300, connect=10), limits=limits) as http:
        conversations = conversation_mix(target, http, results, *mix)
        start = time.perf_counter()
        outcomes = await asyncio.wait_for(asyncio.gather(*conversations, return_exceptions=True), RUN_TIMEOUT_S)
        wall = time.perf_counter() - start
    failures = [f"{type(o).__name__}: {str(o)[:200]}" for o in outcomes if isinstance(o, BaseException)]
    return results, wall, failures


def record(result: BenchResult, label: str, results: Any, wall: float, failures: list[str], target_s: float) -> None:
    every = [x for values in results.latencies.values() for x in values]
    result.figures[f"{label}: turns / wall s / turns per s"] = (
        f"{len(every)} / {wall:.1f} / {len(every) / wall:.2f}" if every else "none")
    result.figures[f"{label}: failed conversations"] = f"{len(failures)} {failures[:3]}"
    for kind, values in results.latencies.items():
        if values:
            result.figures[f"{label}: {kind} p50 / p95 / max s"] = (
                f"{percentile(values, 50):.2f} / {percentile(values, 95):.2f} / {max(values):.2f} ({len(values)} turns)")
    for kind in ("help center", "coach via UI", "coach via SSE"):
        values = results.latencies[kind]
        if values:
            ours = percentile(values, 95)
            result.checks.append(Check(f"{label}: {kind} p95", ours, None, "s", target=f"<= {target_s:g} s",
                                       ok=ours <= target_s and not failures))


def one_instance(result: BenchResult, mix: tuple[int, int, int]) -> dict[str, list[str]]:
    from tests.demo_index import ingested_template
    from tests.load.test_concurrency import TOKEN, check_persisted
    from tests.resilience.harness import Stack, checkpoint_file

    template = ingested_template(cache_root())
    work = Path(tempfile.mkdtemp(prefix="relais-bench-load-"))
    loads = [round(os.getloadavg()[0], 2)]
    stack = None
    try:
        data = work / "data"
        shutil.copytree(template, data, ignore=shutil.ignore_patterns(".complete"))
        stack = Stack(work, data, env={"EXTERNAL_AGENT_TOKEN": TOKEN, "RELAIS_WARM_START": "true"})
        profiled(stack.app, work / "app-profile.json")
        profiled(stack.agent, work / "agent-profile.json")
        stack.start()
        result.figures["one instance: ready after start s"] = round(wait_ready(stack.url), 1)
        loads.append(round(os.getloadavg()[0], 2))
        start_profiles([stack.app, stack.agent])
        results, wall, failures = asyncio.run(run_mix(stack, mix))
        loads.append(round(os.getloadavg()[0], 2))
        profiles = {name: read_profile(work / f"{name}-profile.json") for name in ("app", "agent")}
        if not failures:
            asyncio.run(check_persisted(stack.url, checkpoint_file(data), results))
        record(result, "one instance", results, wall, failures, TARGET_P95_S)
        turns = sum(len(v) for v in results.latencies.values())
        ui_turns = len(results.latencies["help center"]) + len(results.latencies["coach via UI"])
        result.figures["one instance: persisted (lost / duplicated / cross-talk)"] = (
            "checked: 0 / 0 / 0" if not failures else "not checked (failures)")
        return {
            "app (per turn through the app)": format_summary(profiles["app"], ui_turns),
            "agent service (per turn, all kinds)": format_summary(profiles["agent"], turns),
        }
    finally:
        if stack is not None:
            stack.stop()
        result.figures["load avg 1m (start, ready, after the conversations)"] = loads
        logs = REPO_ROOT / "test-artifacts" / "bench-load"
        logs.mkdir(parents=True, exist_ok=True)
        for path in [*work.glob("*.log"), *work.glob("*-profile.json")]:
            shutil.copy(path, logs / path.name)
        shutil.rmtree(work, ignore_errors=True)


def body(result: BenchResult, short: bool) -> None:
    mix = MIX["short" if short else "full"]
    result.figures["conversations (help center, coach via the app, coach over SSE), 2 turns each"] = mix
    for name, lines in one_instance(result, mix).items():
        result.notes.append(f"profile, {name}:\n    " + "\n    ".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="20 conversations instead of 50")
    args = parser.parse_args(argv)
    return run_main("load", "Fifty simultaneous conversations through the real app", lambda r: body(r, args.short))


if __name__ == "__main__":
    raise SystemExit(main())
