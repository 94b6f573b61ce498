"""A real LangGraph dev server (`langgraph dev`, in-memory runtime) on 127.0.0.1 for tests.

Installed into its own venv by `scripts/langgraph-server.sh install` (run by `make test`; run
here too when missing, so the suites never skip). It serves the repo's `langgraph.json`
(booking agent + coach) with the project's code from `src/`, offline.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from relais.serving import free_port

REPO_ROOT = Path(__file__).resolve().parents[1]
SCRIPT = REPO_ROOT / "scripts" / "langgraph-server.sh"


@dataclass
class LangGraphServer:
    """One running server: its URL, where its state and the booking store live."""

    url: str
    port: int
    workdir: Path
    booking_db: Path
    proc: subprocess.Popen | None = None

    def start(self, timeout_s: float = 90.0) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MISTRAL_", "RELAIS_MODEL"))}
        env |= {"BOOKING_DB_PATH": str(self.booking_db), "RELAIS_DATA_DIR": str(self.workdir / "data"),
                "RELAIS_LANGGRAPH_WORKDIR": str(self.workdir)}
        log = open(self.workdir / "server.log", "ab")  # noqa: SIM115 - kept open for the process's life
        self.proc = subprocess.Popen(
            ["bash", str(SCRIPT), "serve", str(self.port)], cwd=self.workdir, env=env, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"langgraph dev exited: {(self.workdir / 'server.log').read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/ok", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"langgraph dev not up in {timeout_s} s")

    def stop(self) -> None:
        """SIGINT to the server's own process group (it flushes its state to .langgraph_api)."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

    def restart(self) -> None:
        self.stop()
        self.start()


def ensure_installed() -> None:
    """The server's venv; installed now if `make test` did not (never a skip)."""
    subprocess.run(["bash", str(SCRIPT), "install"], check=True, cwd=REPO_ROOT)


def running_server(workdir: Path) -> Iterator[LangGraphServer]:
    ensure_installed()
    port = free_port()
    server = LangGraphServer(f"http://127.0.0.1:{port}", port, workdir, workdir / "bookings.db")
    server.start()
    try:
        yield server
    finally:
        server.stop()
