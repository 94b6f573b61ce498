"""A booking turn through a real LangGraph dev server vs the same graph in-process, side by side.

The turn: "Book yoga on Monday at 18:00" on a new thread, until the approval interrupt (the
offline engine decides, so the model costs nothing and what is measured is the path). Rounds
alternate in-process / server. In-process: `build_booking_agent()` on an InMemorySaver,
`astream(stream_mode=["messages", "updates"])` to its end. Server: `LangGraphAgentClient.stream`
(thread mapping, `get_state`, `runs.stream`, event mapping) to its `DoneEvent`.

Run alone: `.venv/bin/python -m benchmarks.bench_langgraph_turn [--rounds 10]` (starts the server
with scripts/langgraph-server.sh on a free loopback port, installs its venv if needed).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import httpx

from assistant.langgraph_agent import LangGraphAgentClient
from booking import BookingStore, build_booking_agent
from relais.events import InterruptEvent
from relais.serving import free_port
from relais.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
REQUEST = "Book yoga on Monday at 18:00"


async def in_process(agent) -> float:
    start = time.perf_counter()
    config = {"configurable": {"thread_id": str(uuid.uuid4())}}
    async for _ in agent.astream({"messages": [{"role": "user", "content": REQUEST}]}, config,
                                 stream_mode=["messages", "updates"]):
        pass
    return time.perf_counter() - start


async def through_server(client: LangGraphAgentClient) -> float:
    start = time.perf_counter()
    events = [e async for e in client.stream(REQUEST, "bench", [], str(uuid.uuid4()), "en")]
    assert any(isinstance(e, InterruptEvent) for e in events), events
    return time.perf_counter() - start


async def run(rounds: int, url: str, workdir: Path) -> None:
    agent = build_booking_agent(store=BookingStore(workdir / "inproc.db"))
    client = LangGraphAgentClient(Settings(external_agent_url=url, external_agent_protocol="langgraph",
                                           external_agent_assistant="booking", relais_data_dir=workdir))
    await in_process(agent), await through_server(client)  # warm both paths
    local, server = [], []
    for _ in range(rounds):
        local.append(await in_process(agent))
        server.append(await through_server(client))
    await client.aclose()
    med_l, med_s = statistics.median(local), statistics.median(server)
    print(f"rounds {rounds}, load {os.getloadavg()[0]:.1f}")
    print(f"in-process  median {med_l * 1000:7.1f} ms  max {max(local) * 1000:7.1f} ms")
    print(f"LangGraph   median {med_s * 1000:7.1f} ms  max {max(server) * 1000:7.1f} ms")
    print(f"ratio server / in-process: {med_s / med_l:.1f}x, added {1000 * (med_s - med_l):.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir, port = Path(tmp), free_port()
        env = os.environ | {"RELAIS_LANGGRAPH_WORKDIR": tmp, "BOOKING_DB_PATH": str(Path(tmp) / "server.db")}
        proc = subprocess.Popen(["bash", str(ROOT / "scripts" / "langgraph-server.sh"), "serve", str(port)],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(600):
                try:
                    if httpx.get(url + "/ok", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.3)
            asyncio.run(run(args.rounds, url, workdir))
        finally:
            os.killpg(proc.pid, 2)
            proc.wait(timeout=20)


if __name__ == "__main__":
    main()
