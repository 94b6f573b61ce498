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
`--before-ref COMMIT`: the same mix on that commit's app too, both stacks up, one mix at a time,
rounds interleaved (`--rounds`), so before -> after is read in one run.
Targets (issue 28): p95 <= 5 s on one instance; <= 8 s through nginx with three instances
(`--nginx`: PostgreSQL, a Chroma server and nginx as `scripts/scale-tests.sh` starts them; run
without them, the bench starts them through that script).
Run alone: `.venv/bin/python -m benchmarks.bench_load [--short] [--nginx] [--before-ref COMMIT]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from benchmarks._common import REPO_ROOT, BenchResult, Check, percentile, run_main
from benchmarks.app_profile import format_summary
from benchmarks.bench_app_answers import cache_root, wait_ready

TARGET_P95_S = 5.0
TARGET_NGINX_P95_S = 8.0
MIX = {"full": (8, 8, 34), "short": (4, 4, 12)}  # help center, coach via the app, coach over SSE
RUN_TIMEOUT_S = 600.0


def profiled(server: Any, out: Path, tree: Path | None = None, mark: str | None = None) -> None:
    """Run `server` (a `ServerProcess` of `python -m MODULE ...`) under `benchmarks.app_profile`,
    from the source tree `tree` when given (its packages first on the path)."""
    python, rest = server.args[0], server.args[1:]
    server.args = [python, "-m", "benchmarks.app_profile", str(out), *rest]
    paths = [*([str(tree / "src")] if tree else []), str(REPO_ROOT), *filter(None, [server.env.get("PYTHONPATH")])]
    server.env = {**server.env, "PYTHONPATH": os.pathsep.join(paths)}
    if mark:
        server.env["RELAIS_PROFILE_TURN_MARK"] = mark
    if tree is not None and "chainlit" in rest:
        app_file = next(a for a in rest if a.endswith("app.py"))
        server.args[server.args.index(app_file)] = str(tree / "src" / "chatbot" / "app.py")


AGENT_TURN_MARK = "coach/service.py:stream"  # the agent service's SSE turn


def start_profiles(servers: list[Any]) -> None:
    for server in servers:
        os.kill(server.proc.pid, signal.SIGUSR1)  # the measurement starts with the conversations


def read_profile(out: Path) -> dict[str, Any]:
    time.sleep(2.5)  # written every 2 s
    data = json.loads(out.read_text())
    shutil.copy(out, out.with_name(out.stem + "-last-round.json"))
    return data


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


def record(result: BenchResult, label: str, rounds: list[tuple[Any, float, list[str]]], target_s: float,
           reference: dict[str, float] | None = None) -> dict[str, float]:
    """Figures of a side's rounds pooled; a check per kind of turn (against `reference`'s p95 when
    given); returns this side's p95 per kind."""
    latencies: dict[str, list[float]] = {}
    for results, _, _ in rounds:
        for kind, values in results.latencies.items():
            latencies.setdefault(kind, []).extend(values)
    failures = [f for _, _, fs in rounds for f in fs]
    turns, wall = sum(len(v) for v in latencies.values()), sum(w for _, w, _ in rounds)
    result.figures[f"{label}: turns / wall s / turns per s"] = f"{turns} / {wall:.1f} / {turns / max(wall, 1e-9):.2f}"
    result.figures[f"{label}: failed conversations"] = f"{len(failures)} {failures[:3]}"
    p95s: dict[str, float] = {}
    for kind, values in latencies.items():
        if not values:
            continue
        p95s[kind] = percentile(values, 95)
        result.figures[f"{label}: {kind} p50 / p95 / max s"] = (
            f"{percentile(values, 50):.2f} / {p95s[kind]:.2f} / {max(values):.2f} ({len(values)} turns)")
        ref = (reference or {}).get(kind)
        result.checks.append(Check(f"{label}: {kind} p95", p95s[kind], ref, "s",
                                   ratio=p95s[kind] / ref if ref else None, target=f"<= {target_s:g} s",
                                   ok=p95s[kind] <= target_s and not failures))
    return p95s


def profile_lines(profiles: dict[str, dict[str, Any]], results: Any) -> dict[str, list[str]]:
    turns = sum(len(v) for v in results.latencies.values())
    ui_turns = len(results.latencies["help center"]) + len(results.latencies["coach via UI"])
    return {"app (per turn through the app)": format_summary(profiles["app"], ui_turns),
            "agent service (per turn, all kinds)": format_summary(profiles["agent"], turns)}


def one_instance(result: BenchResult, mix: tuple[int, int, int], rounds: int,
                 before: Path | None) -> dict[str, list[str]]:
    from tests.demo_index import ingested_template
    from tests.load.test_concurrency import TOKEN, check_persisted
    from tests.resilience.harness import Stack, checkpoint_file

    template = ingested_template(cache_root())
    work = Path(tempfile.mkdtemp(prefix="relais-bench-load-"))
    loads = [round(os.getloadavg()[0], 2)]
    sides: dict[str, Any] = {}
    done: dict[str, list[tuple[Any, float, list[str]]]] = {}
    lines: dict[str, list[str]] = {}
    try:
        for side, tree in ([("before", before)] if before else []) + [("after", None)]:
            (work / side).mkdir()
            data = work / side / "data"
            shutil.copytree(template, data, ignore=shutil.ignore_patterns(".complete"))
            stack = Stack(work / side, data, env={"EXTERNAL_AGENT_TOKEN": TOKEN, "RELAIS_WARM_START": "true"})
            profiled(stack.app, work / side / "app-profile.json", tree)
            profiled(stack.agent, work / side / "agent-profile.json", tree, AGENT_TURN_MARK)
            sides[side] = stack.start()
        for side, stack in sides.items():
            result.figures[f"{side}: ready after start s"] = round(wait_ready(stack.url), 1)
        loads.append(round(os.getloadavg()[0], 2))
        order = list(sides)
        for r in range(rounds):
            for side in order[r % len(order):] + order[: r % len(order)]:  # interleaved, rotated
                stack = sides[side]
                start_profiles([stack.app, stack.agent])
                outcome = asyncio.run(run_mix(stack, mix))
                loads.append(round(os.getloadavg()[0], 2))
                profiles = {name: read_profile(stack.work / f"{name}-profile.json") for name in ("app", "agent")}
                if not outcome[2]:
                    asyncio.run(check_persisted(stack.url, checkpoint_file(stack.data_dir), outcome[0]))
                done.setdefault(side, []).append(outcome)
                if side == "after" or len(sides) == 1:
                    lines = profile_lines(profiles, outcome[0])
        reference = record(result, "one instance, before", done["before"], TARGET_P95_S) if before else None
        record(result, "one instance", done["after"], TARGET_P95_S, reference)
        result.figures["one instance: persisted (lost / duplicated / cross-talk)"] = (
            "checked: 0 / 0 / 0" if not any(f for rs in done.values() for _, _, f in rs) else "not all checked (failures)")
        return lines
    finally:
        for stack in sides.values():
            stack.stop()
        result.figures["load avg 1m (start, ready, after each mix)"] = loads
        keep(work)


def keep(work: Path) -> None:
    """The servers' logs and profiles, kept in test-artifacts/bench-load (temp folders do not last)."""
    logs = REPO_ROOT / "test-artifacts" / "bench-load"
    logs.mkdir(parents=True, exist_ok=True)
    for path in [*work.rglob("*.log"), *work.rglob("*-profile*.json")]:
        shutil.copy(path, logs / f"{path.parent.name}-{path.name}")
    shutil.rmtree(work, ignore_errors=True)


@contextlib.contextmanager
def patient() -> Iterator[None]:
    """The scale test's patience: six servers on 2 shared cores, a turn may take minutes (300 s)."""
    from unittest import mock

    from tests.chainlit_driver import ChatSession
    from tests.load import test_concurrency as load
    from tests.resilience.harness import Chat

    async def ask(self: Chat, text: str, timeout: float = 300) -> Any:
        return await ChatSession.ask(self, text, timeout=timeout)

    with mock.patch.object(load, "TURN_TIMEOUT_S", 300), mock.patch.object(Chat, "ask", ask):
        yield


def through_nginx(result: BenchResult, mix: tuple[int, int, int], before: Path | None = None,
                  rounds: int = 1) -> dict[str, list[str]]:
    """Three instances behind nginx (deploy/nginx.conf), PostgreSQL and a Chroma server shared, as
    `tests/scale/test_load_balancer.py` runs them; instance 1's app and agent are profiled. With
    `before`, that tree's cluster too, one cluster at a time, sides alternating round by round."""
    sides = ([("before", before)] if before else []) + [("after", None)]
    done: dict[str, list[tuple[Any, float, list[str]]]] = {}
    lines: dict[str, list[str]] = {}
    loads: list[float] = []
    for r in range(rounds):
        for side, tree in sides[r % len(sides):] + sides[: r % len(sides)]:
            outcome, profiles = one_cluster(mix, tree, loads)
            done.setdefault(side, []).append(outcome)
            if side == "after":
                third = SimpleNamespace(latencies={k: v[: len(v) // 3] for k, v in outcome[0].latencies.items()})
                lines = {f"instance 1 of 3, {name}": text for name, text in profile_lines(profiles, third).items()}
    result.figures["nginx: load avg 1m (start, ready, after the mix; per cluster)"] = loads
    reference = record(result, "nginx, 3 instances, before", done["before"], TARGET_NGINX_P95_S) if before else None
    record(result, "nginx, 3 instances", done["after"], TARGET_NGINX_P95_S, reference)
    result.figures["nginx, 3 instances: persisted (lost / duplicated / cross-talk)"] = (
        "checked: 0 / 0 / 0" if not any(f for rs in done.values() for _, _, f in rs) else "not all checked (failures)")
    return lines


def one_cluster(mix: tuple[int, int, int], tree: Path | None,
                loads: list[float]) -> tuple[tuple[Any, float, list[str]], dict[str, Any]]:
    """One cluster of `tree`'s app (None: this checkout) started, warm, the mix run, stopped."""
    from tests.load.test_concurrency import check_persisted
    from tests.scale.test_load_balancer import running_cluster

    work = Path(tempfile.mkdtemp(prefix="relais-bench-lb-"))
    loads.append(round(os.getloadavg()[0], 2))

    def as_shipped(stack: Any, i: int) -> None:
        # warm start on, as shipped (the scale test's apps load lazily, `tests.chainlit_driver`):
        # without it each instance loaded its encoders and rebuilt BM25 inside its first turns
        stack.app.env["RELAIS_WARM_START"] = "true"
        profiled(stack.app, work / f"app-profile-{i}.json", tree)
        profiled(stack.agent, work / f"agent-profile-{i}.json", tree, AGENT_TURN_MARK)

    try:
        with running_cluster(work, cache_root(), as_shipped) as cluster:
            for stack in cluster.stacks:
                wait_ready(stack.url)
            loads.append(round(os.getloadavg()[0], 2))
            start_profiles([s for stack in cluster.stacks for s in (stack.app, stack.agent)])
            balanced = SimpleNamespace(url=cluster.lb_url, agent=SimpleNamespace(url=cluster.agent_lb_url))
            with patient():
                outcome = asyncio.run(run_mix(balanced, mix))
            loads.append(round(os.getloadavg()[0], 2))
            profiles = {"app": read_profile(work / "app-profile-0.json"),
                        "agent": read_profile(work / "agent-profile-0.json")}
            if not outcome[2]:
                asyncio.run(check_persisted(cluster.lb_url, cluster.database_url, outcome[0]))
        return outcome, profiles
    finally:
        keep(work)


def body(result: BenchResult, short: bool, nginx: bool, rounds: int, before_ref: str | None,
         nginx_only: bool = False) -> None:
    mix = MIX["short" if short else "full"]
    result.figures["conversations (help center, coach via the app, coach over SSE), 2 turns each"] = mix
    before = None
    if before_ref:
        from benchmarks.bench_app_answers import export_tree

        before = export_tree(before_ref, Path(tempfile.mkdtemp(prefix="relais-bench-before-")) / "tree")
        result.figures["before = commit"] = before_ref
    try:
        profiles = {} if nginx_only else one_instance(result, mix, rounds, before)
        if nginx:
            profiles.update(through_nginx(result, mix, before, rounds if before else 1))
    finally:
        if before is not None:
            shutil.rmtree(before.parent, ignore_errors=True)
    for name, lines in profiles.items():
        result.notes.append(f"profile, {name}:\n    " + "\n    ".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="20 conversations instead of 50")
    parser.add_argument("--nginx", action="store_true", help="also three instances behind nginx")
    parser.add_argument("--rounds", type=int, default=1, help="mixes per side (with --before-ref: interleaved)")
    parser.add_argument("--before-ref", help="also the app of this commit, side by side (one mix at a time)")
    parser.add_argument("--nginx-only", action="store_true", help="with --nginx: skip the one-instance part")
    args = parser.parse_args(argv)
    args.nginx = args.nginx or args.nginx_only
    if args.nginx and not os.environ.get("RELAIS_SCALE_DATABASE_URL"):  # PostgreSQL, Chroma, nginx first
        import subprocess
        import sys

        command = [sys.executable, "-m", "benchmarks.bench_load", *(argv if argv is not None else sys.argv[1:])]
        return subprocess.run(["bash", str(REPO_ROOT / "scripts" / "scale-tests.sh"), "--run", *command],
                              cwd=REPO_ROOT, check=False).returncode
    return run_main("load", "Fifty simultaneous conversations through the real app",
                    lambda r: body(r, args.short, args.nginx, args.rounds, args.before_ref, args.nginx_only))


if __name__ == "__main__":
    raise SystemExit(main())
