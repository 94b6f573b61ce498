"""Benchmark 8 — 16 simultaneous help-center questions through the real app, as a person sees them.

`bench_answers` times the answer path alone (search + composer in threads). This one starts the
real Chainlit app (orchestrator on, with its coach service, warm start on, SQLite data layer in
a temp data folder holding the demo KB's index) and, once `GET /relais/ready` says ready, opens
16 socket.io conversations (as browser tabs do: `tests.chainlit_driver`), then sends one
help-center question in each at the same moment (EN/FR, `bench_answers.QUESTIONS`). Latency per
question: from the send to the answer's final message with its sources (the turn's end, or the
source elements if they trail it). So Chainlit, the socket, the input guard, the intent
classification, persistence (steps, elements, feedback turn records) and thread titles are in.

Side by side in this run: query micro-batching off (`RELAIS_QUERY_BATCH_MS=0`, the reference) vs
on (the default), each in its own app process on its own copy of the same index, both running,
rounds interleaved off/on; each round uses 16 new conversations. Then, in this process on a copy
of the index (apps stopped), the answer path alone off/on, so the app's overhead shows.
Target: app p95 <= 4 s. Run alone: `.venv/bin/python -m benchmarks.bench_app_answers [--rounds 2]`;
`--before-ref COMMIT|FOLDER` adds a third app from older code (before → after in one run).
`--cold-first-round` measures instead the first round after a fresh ingest, with the composer's
unit vectors prefilled at ingest (`knowledge.unit_cache`) or not, side by side (`cold_body`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._common import REPO_ROOT, BenchResult, Check, percentile, pointed_at, run_main
from benchmarks.bench_answers import QUESTIONS, TARGET_P95_S, simultaneous

READY_TIMEOUT_S = 240.0
TURN_TIMEOUT_S = 120.0
ELEMENT_GRACE_S = 3.0  # source elements may trail the turn's task_end by a moment
USERS = ("alice", "bob")  # relais_env's two users; tabs of one user share its login cookie


def cache_root() -> Path:
    """Where the ingested demo KB is kept between runs (keyed by the KB's content)."""
    root = Path(tempfile.gettempdir()) / "relais-bench-cache"
    root.mkdir(parents=True, exist_ok=True)
    return root


def wait_ready(base_url: str, timeout: float = READY_TIMEOUT_S) -> float:
    """Poll `GET /relais/ready` until 200; returns the seconds waited."""
    import httpx

    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            if httpx.get(base_url + "/relais/ready", timeout=2).status_code == 200:
                return time.monotonic() - started
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise TimeoutError(f"{base_url} not ready after {timeout:.0f} s")


async def one_question(chat: Any, question: str, go: asyncio.Event) -> dict[str, Any]:
    """Wait for the common start, send, time until the final answer with its sources."""
    await go.wait()
    started = time.perf_counter()
    turn = await chat.ask(question, timeout=TURN_TIMEOUT_S)
    ended = time.perf_counter()
    if not turn.elements:  # trailing sources: the answer is complete when they arrive
        deadline = ended + ELEMENT_GRACE_S
        while not turn.elements and time.perf_counter() < deadline:
            await asyncio.sleep(0.01)
        if turn.elements:
            ended = time.perf_counter()
    text = turn.text
    return {"seconds": ended - started, "sources": len(turn.elements), "error": "⚠️" in text, "chars": len(text)}


async def app_round(base_url: str, tokens: dict[str, str], questions: list[str]) -> list[dict[str, Any]]:
    """16 new conversations, connected first; then every question sent at the same moment."""
    from tests.resilience.harness import Chat

    chats = [Chat(base_url, tokens[USERS[i % len(USERS)]]) for i in range(len(questions))]
    try:
        await asyncio.gather(*(c.connect() for c in chats))
        go = asyncio.Event()
        tasks = [asyncio.create_task(one_question(c, q, go)) for c, q in zip(chats, questions)]
        await asyncio.sleep(0.2)  # every task is waiting on `go`
        go.set()
        return await asyncio.gather(*tasks)
    finally:
        await asyncio.gather(*(c.close() for c in chats), return_exceptions=True)


def answer_path(folder: Path, rounds: int) -> dict[str, list[float]]:
    """The answer path alone (`bench_answers.simultaneous`), off/on interleaved, on `folder`.

    Its untimed first pass stores the composer's vectors for these questions' passages in the
    folder's embedding cache, so the apps started from a copy of it are in the same steady state."""
    from knowledge.retrieval import get_knowledge_base
    from knowledge.settings import knowledge_settings
    from knowledge.warmup import warm_up

    with pointed_at(folder):
        settings = knowledge_settings()
        warm_up(settings)
        kb = get_knowledge_base(settings)
        batcher = kb.embedder.batcher
        window = batcher.window_s or settings.kit.relais_query_batch_ms / 1000
        simultaneous(kb, QUESTIONS)  # untimed, as in bench_answers (steady state)
        out: dict[str, list[float]] = {"off": [], "on": []}
        for _ in range(rounds):
            for mode in ("off", "on"):
                batcher.window_s = 0.0 if mode == "off" else window
                out[mode].extend(simultaneous(kb, QUESTIONS))
        batcher.window_s = window
        return out


def export_tree(ref: str, dest: Path) -> Path:
    """The repository at `ref` (a commit), exported with `git archive` (no checkout touched)."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "--format=tar", ref], cwd=REPO_ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


def start_side(data_dir: Path, work: Path, tree: Path | None, **env: str) -> Any:
    """An agent service and the Chainlit app over `data_dir`; from another source tree if given."""
    from tests.chainlit_driver import APP_FILE, agent_server, chainlit_server
    from tests.e2e.conftest import Stack, start_stack

    if tree is None:
        return start_stack(data_dir, work, **env)
    flat = (tree / "src" / "chatbot").is_dir()  # today's layout; older commits nest apps/X/src/X
    paths = str(tree / "src") if flat else ":".join(str(s) for s in sorted((tree / "apps").glob("*/src")))
    env = {**env, "PYTHONPATH": paths}  # its packages first
    agent = agent_server(data_dir, work, **env).start()
    app = chainlit_server(data_dir, work, ENABLE_ORCHESTRATOR="true", EXTERNAL_AGENT_URL=agent.url, **env)
    app.args[app.args.index(str(APP_FILE))] = str(tree / ("src/chatbot/app.py" if flat else "apps/chatbot/app.py"))
    try:
        app.start()
    except Exception:
        agent.stop()
        raise
    return Stack(app=app, agent=agent, data_dir=data_dir, workdir=work)


def body(result: BenchResult, rounds: int, before_ref: str | None = None) -> None:
    from tests.chainlit_driver import login
    from tests.demo_index import ingested_template
    from tests.e2e.conftest import USERS as PASSWORDS

    t0 = time.perf_counter()
    template = ingested_template(cache_root())
    result.figures["ingest (cached between runs) s"] = round(time.perf_counter() - t0, 1)
    work = Path(tempfile.mkdtemp(prefix="relais-bench-app-"))
    loads: list[float] = [round(os.getloadavg()[0], 2)]
    stacks: dict[str, Any] = {}
    samples: dict[str, list[dict[str, Any]]] = {}
    try:
        prepared = work / "prepared"
        shutil.copytree(template, prepared, ignore=shutil.ignore_patterns(".complete"))
        path = answer_path(prepared, rounds)  # first: the apps are not running yet
        loads.append(round(os.getloadavg()[0], 2))
        sides: dict[str, tuple[Path | None, dict[str, str]]] = {
            "off": (None, {"RELAIS_QUERY_BATCH_MS": "0"}), "on": (None, {})}
        if before_ref and Path(before_ref).is_dir():  # a source tree prepared by hand
            sides["before"] = (Path(before_ref).resolve(), {})
            result.figures["before = tree"] = before_ref
        elif before_ref:
            commit = subprocess.run(["git", "rev-parse", "--short", before_ref], cwd=REPO_ROOT, capture_output=True,
                                    text=True, check=True).stdout.strip()
            sides["before"] = (export_tree(commit, work / "before-tree"), {})
            result.figures["before = commit"] = commit
        for mode, (tree, env) in sides.items():
            data_dir = work / f"data-{mode}"
            shutil.copytree(prepared, data_dir)
            (work / mode).mkdir()
            stacks[mode] = start_side(data_dir, work / mode, tree, RELAIS_WARM_START="true", **env)
        for mode, stack in stacks.items():
            result.figures[f"app {mode}: ready after start s"] = round(wait_ready(stack.url), 1)
        tokens = {mode: {u: login(s.url, u, PASSWORDS[u]) for u in USERS} for mode, s in stacks.items()}
        for mode, stack in stacks.items():  # untimed: each app's own first round (steady state after)
            asyncio.run(app_round(stack.url, tokens[mode], QUESTIONS))
        loads.append(round(os.getloadavg()[0], 2))
        order = list(stacks)
        samples = {mode: [] for mode in order}
        for r in range(rounds):
            for mode in order[r % len(order):] + order[: r % len(order)]:  # interleaved, rotated
                samples[mode].extend(asyncio.run(app_round(stacks[mode].url, tokens[mode], QUESTIONS)))
                loads.append(round(os.getloadavg()[0], 2))
    finally:
        for stack in stacks.values():
            stack.app.stop()
            stack.agent.stop()
        shutil.rmtree(work, ignore_errors=True)

    result.figures["load avg 1m (start, after answer path, after warm rounds, after each timed round)"] = loads
    for mode, rows in samples.items():
        result.figures[f"app {mode}: answers with sources / errors / n"] = (
            f"{sum(1 for s in rows if s['sources'])} / {sum(1 for s in rows if s['error'])} / {len(rows)}")
        result.figures[f"app {mode}: latencies s"] = sorted(round(s["seconds"], 2) for s in rows)
    app = {m: [s["seconds"] for s in rows] for m, rows in samples.items()}
    for q, label in ((50, "p50"), (95, "p95")):
        ours, ref = percentile(app["on"], q), percentile(app["off"], q)
        p95 = label == "p95"
        result.checks.append(Check(f"app: 16 simultaneous questions {label} (batching on vs off)", ours, ref, "s",
                                   ratio=ours / ref, target=f"<= {TARGET_P95_S} s" if p95 else "",
                                   ok=(ours <= TARGET_P95_S) if p95 else None))
    if "before" in app:
        for q, label in ((50, "p50"), (95, "p95")):
            ours, ref = percentile(app["on"], q), percentile(app["before"], q)
            result.checks.append(Check(f"app: 16 simultaneous {label}, this tree vs {before_ref}", ours, ref, "s",
                                       ratio=ours / ref))
    for q, label in ((50, "p50"), (95, "p95")):
        ours, ref = percentile(app["on"], q), percentile(path["on"], q)
        result.checks.append(Check(f"app vs answer path alone {label} (batching on)", ours, ref, "s",
                                   ratio=ours / ref, delta=ours - ref))
    for mode in ("off", "on"):
        result.figures[f"answer path alone {mode}: p50 / p95 s"] = (
            f"{percentile(path[mode], 50):.2f} / {percentile(path[mode], 95):.2f}")
    result.notes.append("real Chainlit app + coach service per side (orchestrator on, warm start, SQLite), "
                        "16 new socket.io conversations per round, questions sent together; latency = send -> "
                        "final answer with its sources; steady state: the composer's vectors cached by the "
                        "answer-path pass and one untimed round per app; answer path measured first, apps not running")


def fresh_ingest(dest: Path, **env: str) -> float:
    """The demo KB ingested by the real CLI into `dest` (nothing cached); returns the seconds."""
    import sys

    from tests.chainlit_driver import relais_env

    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "cli.app", "ingest"], env=relais_env(dest, **env), cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ingest failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return time.perf_counter() - started


def prefill_copy(folder: Path) -> tuple[float, int]:
    """What ingest does at its end (`knowledge.unit_cache`), run on `folder`: (seconds, texts encoded)."""
    from knowledge.retrieval import KnowledgeBase
    from knowledge.settings import knowledge_settings
    from knowledge.unit_cache import prefill_unit_vectors

    with pointed_at(folder):
        settings = knowledge_settings()
        kb = KnowledgeBase(settings)
        kb.lexical()
        kb.embedder.embed_query("warm")  # model loading is not the prefill's cost
        if kb.cross is not None:
            kb.cross.embedder.embed_query("warm")
        done = prefill_unit_vectors(kb, settings.data_dir / "embeddings")
        return done.seconds, done.encoded


def cold_body(result: BenchResult) -> None:
    """The first round after a fresh ingest, composer unit vectors prefilled at ingest or not.

    One CLI ingest with the prefill off (`RELAIS_PREFILL_BUDGET_S=0`); a copy of it gets the
    prefill ingest runs at its end (timed here). An app (warm start on) per side, both running;
    once both say ready, each side's FIRST round of 16 simultaneous questions, one side after the
    other (off first: the side that goes second is the disadvantaged one), then one warm round
    each for reference (on first)."""
    from tests.chainlit_driver import login
    from tests.e2e.conftest import USERS as PASSWORDS

    work = Path(tempfile.mkdtemp(prefix="relais-bench-cold-"))
    loads: list[float] = [round(os.getloadavg()[0], 2)]
    stacks: dict[str, Any] = {}
    first: dict[str, list[float]] = {}
    warm: dict[str, list[float]] = {}
    try:
        result.figures["fresh ingest, prefill off s"] = round(fresh_ingest(work / "data-off", RELAIS_PREFILL_BUDGET_S="0"), 1)
        shutil.copytree(work / "data-off", work / "data-on")
        seconds, encoded = prefill_copy(work / "data-on")
        result.figures["prefill (what ingest adds) s / texts encoded"] = f"{seconds:.1f} / {encoded}"
        loads.append(round(os.getloadavg()[0], 2))
        for mode in ("off", "on"):
            (work / mode).mkdir()
            stacks[mode] = start_side(work / f"data-{mode}", work / mode, None, RELAIS_WARM_START="true")
        for mode, stack in stacks.items():
            result.figures[f"app {mode}: ready after start s"] = round(wait_ready(stack.url), 1)
        tokens = {mode: {u: login(s.url, u, PASSWORDS[u]) for u in USERS} for mode, s in stacks.items()}
        for rows, order in ((first, ("off", "on")), (warm, ("on", "off"))):  # the side that goes second
            for mode in order:  # shares the CPU with the other app's after-turn work (titles, records)
                rows[mode] = [r["seconds"] for r in asyncio.run(app_round(stacks[mode].url, tokens[mode], QUESTIONS))]
                loads.append(round(os.getloadavg()[0], 2))
        for mode, stack in stacks.items():  # did the warm-up finish, or fail and leave loading to the questions?
            lines = [line for line in stack.app.logs().splitlines() if "warm in" in line or "warm start failed" in line]
            result.figures[f"app {mode}: warm-up log"] = lines[-1].strip()[-80:] if lines else "(no line)"
    finally:
        for stack in stacks.values():
            stack.app.stop()
            stack.agent.stop()
        shutil.rmtree(work, ignore_errors=True)
    result.figures["load avg 1m (start, after ingest+prefill, after each round: first off/on, warm on/off)"] = loads
    for rows, label in ((first, "first round"), (warm, "warm round")):
        for mode, values in rows.items():
            result.figures[f"{label} prefill {mode}: p50 / p95 / max s"] = (
                f"{percentile(values, 50):.2f} / {percentile(values, 95):.2f} / {max(values):.2f}")
    for q, label in ((50, "p50"), (95, "p95")):
        if first.get("on") and first.get("off"):
            ours, ref = percentile(first["on"], q), percentile(first["off"], q)
            result.checks.append(Check(f"app: first round after a fresh ingest {label} (prefill on vs off)", ours, ref,
                                       "s", ratio=ours / ref))
    result.notes.append("real Chainlit app + coach service per side (orchestrator on, warm start, SQLite); "
                        "16 new socket.io conversations per round, questions sent together; first round = the "
                        "first questions the app ever answers after its fresh ingest")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--before-ref", help="also run the app of this commit, or of this source tree (a folder "
                        "holding src/ (or an older apps/*/src) and its app.py), batching on, side by side")
    parser.add_argument("--cold-first-round", action="store_true", help="instead: the first round after a fresh "
                        "ingest, composer unit vectors prefilled at ingest (on) or not (off), side by side")
    args = parser.parse_args(argv)
    if args.cold_first_round:
        return run_main("app_answers_cold", "Help-center answers through the real app: the first 16 simultaneous "
                        "questions after a fresh ingest", cold_body)
    return run_main("app_answers", "Help-center answers through the real app: 16 simultaneous questions",
                    lambda r: body(r, args.rounds, args.before_ref))


if __name__ == "__main__":
    raise SystemExit(main())
