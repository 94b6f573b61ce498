"""Benchmark 4 — coach turn overhead with a zero-latency scripted model.

Per user turn, on the same checkpointer and the same zero-latency `ScriptedChatModel` reply:
- ours: `CoachRunner.run_turn` on `build_coach_graph` — router → advisor (one model call) →
  human node (`interrupt`), resumed next turn with `Command(resume=...)`, events converted to
  `relais.events`; messages alternate between workout and nutrition so the router hands over;
- reference: a bare 1-node LangGraph graph (`MessagesState`, one node calling the same model),
  streamed with the same stream modes.

Both run for the in-memory saver and the SQLite saver (`coach.open_checkpointer` on a temp file),
turns interleaved ours/reference in alternating order, conversations growing turn by turn like a
real thread. Target: ours < 15 ms per turn (p50) with SQLite.

Run alone: `.venv/bin/python -m benchmarks.bench_coach [--turns 20 --threads 3]`.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from benchmarks._common import BenchResult, Check, median, percentile, run_main

TARGET_SQLITE_MS = 15.0
REPLY = "Here is your plan: three full-body sessions a week, and protein at every meal."
MESSAGES = [
    "I want a 3-day workout plan to build strength.",
    "What should I eat for breakfast on training days?",
    "Can you add some cardio to my routine?",
    "I'm vegetarian, which snacks do you suggest?",
]


def scripted_model() -> Any:
    from relais.testing import ScriptedChatModel

    return ScriptedChatModel([REPLY], repeat_last=True)


def bare_graph(model: Any, saver: Any) -> Any:
    """The reference: START → one node that calls the model → END, same checkpointer."""
    from langgraph.graph import START, MessagesState, StateGraph

    async def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    return builder.compile(checkpointer=saver)


async def measure(saver: Any, turns: int, threads: int, warmup: int = 2) -> dict[str, list[float]]:
    from langchain_core.messages import HumanMessage

    from coach.graph import build_coach_graph
    from coach.runner import CoachRunner
    from relais.events import DoneEvent, ErrorEvent, InterruptEvent, TextChunk

    runner = CoachRunner(build_coach_graph(scripted_model(), saver), engine="scripted")
    bare = bare_graph(scripted_model(), saver)

    async def ours(thread: str, text: str) -> None:
        kinds = set()
        async for event in runner.run_turn(thread, text):
            kinds.add(type(event))
            if isinstance(event, ErrorEvent):
                raise RuntimeError(f"coach turn failed: {event.message}")  # noqa: TRY004 - a failed turn
        if not {TextChunk, InterruptEvent, DoneEvent} <= kinds:
            raise RuntimeError(f"coach turn incomplete: got {sorted(k.__name__ for k in kinds)}")

    async def reference(thread: str, text: str) -> None:
        config = {"configurable": {"thread_id": thread}}
        async for _ in bare.astream({"messages": [HumanMessage(text)]}, config,
                                    stream_mode=["messages", "updates"]):
            pass

    sides: dict[str, Callable[[str, str], Awaitable[None]]] = {"coach": ours, "bare": reference}
    samples: dict[str, list[float]] = {name: [] for name in sides}
    stamp = time.time_ns()
    for t in range(threads):
        for turn in range(warmup + turns):
            text = MESSAGES[turn % len(MESSAGES)]
            order = ("coach", "bare") if (turn + t) % 2 == 0 else ("bare", "coach")
            for name in order:
                started = time.perf_counter()
                await sides[name](f"{name}-{stamp}-{t}", text)
                if turn >= warmup:
                    samples[name].append(time.perf_counter() - started)
    for name in sides:  # how many checkpoints a turn writes explains much of the SQLite cost
        count = 0
        async for _ in saver.alist({"configurable": {"thread_id": f"{name}-{stamp}-0"}}):
            count += 1
        samples[f"{name} checkpoints/turn"] = [count / (warmup + turns)]
    return samples


async def measure_backend(backend: str, turns: int, threads: int) -> dict[str, list[float]]:
    from coach.checkpoint import MEMORY, open_checkpointer

    with tempfile.TemporaryDirectory(prefix="relais-bench-ckpt-") as tmp:
        target = MEMORY if backend == "memory" else str(Path(tmp) / "checkpoints.db")
        async with open_checkpointer(target) as saver:
            return await measure(saver, turns, threads)


def run(result: BenchResult, turns: int = 20, threads: int = 3) -> None:
    for backend in ("memory", "sqlite"):
        samples = asyncio.run(measure_backend(backend, turns, threads))
        coach50, bare50 = median(samples["coach"]) * 1000, median(samples["bare"]) * 1000
        coach95, bare95 = percentile(samples["coach"], 95) * 1000, percentile(samples["bare"], 95) * 1000
        first, last = samples["coach"][: turns // 4], samples["coach"][-(turns // 4):]
        result.figures[f"{backend}: coach turn"] = (
            f"p50 {coach50:.1f} ms, p95 {coach95:.1f} ms (first quarter of a thread p50 "
            f"{median(first) * 1000:.1f} ms, last quarter {median(last) * 1000:.1f} ms)")
        result.figures[f"{backend}: bare 1-node graph"] = f"p50 {bare50:.1f} ms, p95 {bare95:.1f} ms"
        result.figures[f"{backend}: checkpoints written per turn"] = (
            f"coach {samples['coach checkpoints/turn'][0]:.1f}, bare {samples['bare checkpoints/turn'][0]:.1f}")
        ok = coach50 < TARGET_SQLITE_MS if backend == "sqlite" else None
        result.checks.append(Check(f"coach turn p50, {backend} saver", coach50, bare50, "ms",
                                   ratio=coach50 / bare50,
                                   target=f"< {TARGET_SQLITE_MS:g} ms" if backend == "sqlite" else "",
                                   ok=ok))
    result.notes.append(f"{threads} thread(s) x {turns} turns per side after 2 warm-up turns; a coach turn is "
                        "router -> advisor (1 model call) -> human interrupt, resumed by the next message")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20, help="measured turns per thread (default 20)")
    parser.add_argument("--threads", type=int, default=3, help="conversations per side (default 3)")
    args = parser.parse_args(argv)
    return run_main("coach", "4. Coach turn overhead: coach graph vs bare 1-node graph (scripted model)",
                    lambda r: run(r, args.turns, args.threads))


if __name__ == "__main__":
    raise SystemExit(main())
