"""`relais run`: one command, both processes (the agent service — booking agent + coach, routed — and
Chainlit), Ctrl-C stops both."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from tqdm import tqdm

from assistant.settings import assistant_settings
from chatbot.auth import ensure_auth_secret
from chatbot.doctor import refuse_unsafe_start
from chatbot.settings import chatbot_settings
from cli.settings import CliSettings, cli_settings
from knowledge.ingest import ingest_folder
from knowledge.settings import KnowledgeSettings, knowledge_settings

APP_FILE = Path(__file__).resolve().parents[1] / "chatbot" / "app.py"


def _env_file_sets(key: str) -> bool:
    env_file = Path(".env")
    if key in os.environ:
        return True
    if not env_file.exists():
        return False
    return any(line.split("=", 1)[0].strip() == key for line in env_file.read_text().splitlines() if "=" in line)


def demo_turns_orchestrator_on() -> bool:
    """The demo turns ENABLE_ORCHESTRATOR on unless the user's environment or .env chose."""
    return not _env_file_sets("ENABLE_ORCHESTRATOR")


def demo_environment(settings: CliSettings) -> dict[str, str]:
    """The full demo unless the user's environment or .env already chose."""
    env = dict(os.environ)
    if demo_turns_orchestrator_on():
        env["ENABLE_ORCHESTRATOR"] = "true"
    if not _env_file_sets("EXTERNAL_AGENT_URL"):
        env["EXTERNAL_AGENT_URL"] = f"http://{settings.agent_host}:{settings.agent_port}"
    return env


def ensure_indexed(settings: KnowledgeSettings) -> None:
    print("[relais] indexing the knowledge base (unchanged files are skipped)", flush=True)
    report = ingest_folder(settings.relais_kb_dir, settings)
    print(f"[relais] knowledge base: {report.summary()}", flush=True)


def _wait_healthy(url: str, proc: subprocess.Popen, seconds: float = 60, what: str = "") -> bool:
    """Poll `url` until it answers below 500; with `what`, a progress bar says what is awaited:
    the step the app's readiness route names (`done` of `steps`), else 'starting'."""
    deadline = time.monotonic() + seconds
    bar = None
    if what:
        bar = tqdm(total=None, desc=f"[relais] {what}: starting", unit="step", leave=False,
                   bar_format="{desc} {n_fmt}/{total_fmt} [{elapsed}]")
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return False
            try:
                response = httpx.get(url, timeout=1)
                if response.status_code < 500:
                    return True
                _show_status(bar, what, response)
            except httpx.HTTPError:
                pass
            if bar is not None:
                bar.refresh()
            time.sleep(0.3)
        return False
    finally:
        if bar is not None:
            bar.close()


def _show_status(bar: object, what: str, response: httpx.Response) -> None:
    """Name the step a 503 readiness body reports (`{"step", "done", "steps"}`) on `bar`."""
    if bar is None:
        return
    try:
        status = response.json()
    except ValueError:
        return
    if isinstance(status, dict) and status.get("step"):
        bar.total = int(status.get("steps") or 0) or None  # type: ignore[attr-defined]
        bar.n = int(status.get("done") or 0)  # type: ignore[attr-defined]
        bar.set_description_str(f"[relais] {what}: {status['step']}")  # type: ignore[attr-defined]


def _stop_on_sigterm(*_: object) -> None:
    raise KeyboardInterrupt  # SIGTERM stops both children like Ctrl-C does


def launch(host: str | None, port: int | None, demo: bool, headless: bool) -> int:
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    settings, cli = chatbot_settings(), cli_settings()
    app_host, app_port = host or settings.app_host, port or settings.app_port
    refuse_unsafe_start(settings, app_host)
    ensure_auth_secret(settings)
    ensure_indexed(knowledge_settings())
    env = demo_environment(cli) if demo else dict(os.environ)
    env["CHAINLIT_AUTH_SECRET"] = os.environ["CHAINLIT_AUTH_SECRET"]
    procs: list[subprocess.Popen] = []
    relais = [sys.executable, "-m", "cli.app"]
    start_agent = assistant_settings().enable_orchestrator or (demo and demo_turns_orchestrator_on())
    try:
        if start_agent:
            agent = subprocess.Popen([*relais, "agent", "serve"], env=env)
            procs.append(agent)
            if not _wait_healthy(f"http://{cli.agent_host}:{cli.agent_port}/health", agent,
                                 what="starting the agent service (booking + coach)"):
                print("[relais] the agent service did not start", file=sys.stderr)
                return 1
        cmd = [sys.executable, "-m", "chainlit", "run", str(APP_FILE), "--host", app_host, "--port", str(app_port)]
        if headless:
            cmd.append("--headless")
        app = subprocess.Popen(cmd, env=env)
        procs.append(app)
        ready_url = f"http://{app_host}:{app_port}/relais/ready"
        if _wait_healthy(ready_url, app, seconds=240, what="warming up the app"):  # warm start done
            users = ", ".join(settings.users) or "(none: set RELAIS_USERS)"
            print(
                f"\n[relais] open http://{app_host}:{app_port} and log in as one of: {users} "
                "(passwords in RELAIS_USERS; the demo user is demo / relais). Ctrl-C stops everything.\n",
                flush=True,
            )
        return app.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
