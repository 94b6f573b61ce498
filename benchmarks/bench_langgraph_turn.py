"""A booking turn three ways, side by side in one run, then the exactly-once counts.

The turn: "Book yoga on Monday at 18:00" on a new thread, until the approval card (the offline
engine decides, so the model costs nothing and what is measured is the path). Rounds alternate:
- in-process: `build_booking_agent()` on an InMemorySaver, `astream(["messages", "updates"])`;
- Relais protocol: `relais agent serve`'s app (the router, booking agent + coach, SQLite checkpoints)
  on loopback uvicorn, read by `ExternalAgentClient` (HTTP + SSE + routing + checkpoint writes);
- LangGraph server: `LangGraphAgentClient.stream` against a real `langgraph dev` (thread mapping,
  `get_state`, `runs.stream`, event mapping).
Then, against the LangGraph server, booking rows per decision: approve, reject, edit (the edited
values), a double click (two concurrent resumes of one interrupt id), a stale click, and a resume
after the server was stopped and started again.

Run alone: `.venv/bin/python -m benchmarks.bench_langgraph_turn [--rounds 10]` (starts the server
with scripts/langgraph-server.sh on a free loopback port, installs its venv if needed).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

from assistant.langgraph_agent import LangGraphAgentClient
from assistant.relais_client import ExternalAgentClient
from assistant.settings import AssistantSettings
from booking import BookingStore, build_booking_agent
from cli.agent_service import open_agents
from coach.service import create_app
from coach.settings import CoachSettings
from relais.events import AgentEvent, InterruptEvent
from relais.serving import free_port, serve
from relais.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
REQUEST = "Book yoga on Monday at 18:00"


class LangGraphDev:
    """`langgraph dev` on a loopback port, its state and booking store in `workdir`."""

    def __init__(self, workdir: Path) -> None:
        self.workdir, self.port = workdir, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.store = BookingStore(workdir / "server.db")
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = os.environ | {"RELAIS_LANGGRAPH_WORKDIR": str(self.workdir), "BOOKING_DB_PATH": str(self.store.path)}
        self.proc = subprocess.Popen(["bash", str(ROOT / "scripts" / "langgraph-server.sh"), "serve", str(self.port)],
                                     env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        for _ in range(600):
            try:
                if httpx.get(self.url + "/ok", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.3)
        raise RuntimeError("langgraph dev did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            self.proc.wait(timeout=30)


async def timed(turn: Callable[[], Awaitable[list[AgentEvent]]]) -> float:
    start = time.perf_counter()
    events = await turn()
    assert any(isinstance(e, InterruptEvent) for e in events), events
    return time.perf_counter() - start


async def latency(rounds: int, dev: LangGraphDev, relais_url: str, workdir: Path) -> None:
    agent = build_booking_agent(store=BookingStore(workdir / "inproc.db"))
    langgraph = LangGraphAgentClient(AssistantSettings(external_agent_url=dev.url, external_agent_protocol="langgraph", external_agent_assistant="booking").on(Settings(relais_data_dir=workdir)))
    relais = ExternalAgentClient(AssistantSettings(external_agent_url=relais_url))

    async def in_process() -> list[AgentEvent]:
        config = {"configurable": {"thread_id": str(uuid.uuid4())}}
        parts = [p async for p in agent.astream({"messages": [{"role": "user", "content": REQUEST}]}, config,
                                                stream_mode=["messages", "updates"])]
        return [InterruptEvent("card")] if any(m == "updates" and "__interrupt__" in d for m, d in parts) else []

    paths = {
        "in-process": in_process,
        "Relais protocol (relais agent serve)": lambda: _collect(relais.stream(REQUEST, "bench", [], str(uuid.uuid4()))),
        "LangGraph server (langgraph dev)": lambda: _collect(langgraph.stream(REQUEST, "bench", [], str(uuid.uuid4()))),
    }
    samples: dict[str, list[float]] = {name: [] for name in paths}
    for name, turn in paths.items():
        await timed(turn)  # warm each path
    for _ in range(rounds):
        for name, turn in paths.items():
            samples[name].append(await timed(turn))
    await langgraph.aclose()
    await relais.aclose()
    base = statistics.median(samples["in-process"])
    print(f"rounds {rounds}, load {os.getloadavg()[0]:.1f} (1-min average)")
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"{name:38s} median {median * 1000:7.1f} ms  max {max(values) * 1000:7.1f} ms  "
              f"{median / base:5.1f}x in-process")


async def _collect(events: object) -> list[AgentEvent]:
    return [e async for e in events]  # type: ignore[attr-defined]


async def exactly_once(dev: LangGraphDev, workdir: Path) -> None:
    """New booking rows after each decision, read from the server's store."""
    settings = AssistantSettings(external_agent_url=dev.url, external_agent_protocol="langgraph", external_agent_assistant="booking").on(Settings(relais_data_dir=workdir))
    client = LangGraphAgentClient(settings)

    def rows() -> set[str]:
        return {f"{b.activity} {b.day} {b.time}#{b.tool_call_id}" for b in dev.store.bookings()}

    async def card(thread: str, request: str = REQUEST) -> InterruptEvent:
        events = await _collect(client.stream(request, "bench", [], thread))
        return next(e for e in events if isinstance(e, InterruptEvent))

    async def counted(name: str, action: Callable[[], Awaitable[object]]) -> None:
        before = rows()
        await action()
        new = sorted(r.split("#")[0] for r in rows() - before)
        print(f"  {name:34s} {len(new)} row(s) {new}")

    async def answer(thread: str, reply: str, interrupt_id: str | None = None) -> None:
        await _collect(client.stream(reply, "bench", [], thread, interrupt_id=interrupt_id))

    print("exactly once (new booking rows, LangGraph server):")
    thread = str(uuid.uuid4())
    await card(thread)
    await counted("approve", lambda: answer(thread, "approve"))
    thread = str(uuid.uuid4())
    await card(thread)
    await counted("reject", lambda: answer(thread, "reject: wrong day"))
    thread = str(uuid.uuid4())
    await card(thread)
    await counted("edit day=wednesday, time=07:30", lambda: answer(thread, "edit: day=wednesday, time=07:30"))
    thread = str(uuid.uuid4())
    prompt = await card(thread)
    await counted("double click (concurrent)", lambda: asyncio.gather(
        answer(thread, "approve", prompt.interrupt_id), answer(thread, "approve", prompt.interrupt_id)))
    await counted("stale click (same id again)", lambda: answer(thread, "approve", prompt.interrupt_id))
    thread = str(uuid.uuid4())
    prompt = await card(thread)
    await client.aclose()
    dev.stop()
    dev.start()
    client = LangGraphAgentClient(settings)
    await counted("server restarted, then approve", lambda: answer(thread, "approve", prompt.interrupt_id))
    await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        dev = LangGraphDev(workdir)
        dev.start()
        service_settings = Settings(relais_data_dir=workdir / "service", mistral_api_key=None, relais_model=None)
        app = create_app(lambda: open_agents(service_settings), CoachSettings().on(service_settings))
        try:
            with serve(app, ready_path="/health") as relais_url:
                asyncio.run(latency(args.rounds, dev, relais_url, workdir))
            asyncio.run(exactly_once(dev, workdir))
        finally:
            dev.stop()


if __name__ == "__main__":
    main()
