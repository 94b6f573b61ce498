"""Drive a real, headless Chainlit server from tests: start it as a subprocess, log in over
HTTP, talk over socket.io like the browser does (see STACK-NOTES), click action buttons."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
import socketio

from tests.conftest import REPO_ROOT, free_port

APP_FILE = REPO_ROOT / "src" / "chatbot" / "app.py"


class ServerProcess:
    """A subprocess serving HTTP on 127.0.0.1:port, started and stopped (or killed) by tests."""

    def __init__(self, args: list[str], port: int, env: dict[str, str], cwd: Path, log: Path, health: str = "/") -> None:
        self.args, self.port, self.env, self.cwd, self.log_path, self.health = args, port, env, cwd, log, health
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90) -> "ServerProcess":
        return self.launch().wait_ready(timeout)

    def launch(self) -> "ServerProcess":
        """Start the process without waiting for it (see `start_together`)."""
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.args, env=self.env, cwd=self.cwd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        return self

    def wait_ready(self, timeout: float = 90) -> "ServerProcess":
        """Wait until the launched process answers on its health path (or fail with its log)."""
        assert self.proc is not None, "launch() first"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log_path.read_text()[-3000:]}")
            try:
                if httpx.get(self.url + self.health, timeout=1).status_code < 500:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        raise RuntimeError(f"server did not start in {timeout}s:\n{self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def kill9(self) -> None:
        """Crash it: SIGKILL, no shutdown hooks."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def logs(self) -> str:
        return self.log_path.read_text(errors="replace")


def start_together(*servers: tuple[ServerProcess, float]) -> None:
    """Launch every (server, timeout) at once, then wait for each: the app does not call its coach
    service before a turn (`chatbot.doctor.run_checks`: "the agent may start after the app"), so the
    two imports overlap on the machine's cores instead of queueing one after the other."""
    for server, _ in servers:
        server.launch()
    try:
        for server, timeout in servers:
            server.wait_ready(timeout)
    except BaseException:
        for server, _ in servers:
            server.stop()
        raise


def relais_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MISTRAL", "RELAIS_MODEL", "DATABASE_URL", "CHECKPOINT_URL", "CHROMA_HOST"))}
    env.update(
        RELAIS_DATA_DIR=str(data_dir),
        RELAIS_KB_DIR=str(REPO_ROOT / "data" / "knowledge"),
        RELAIS_INTENTS_FILE=str(REPO_ROOT / "data" / "intents" / "examples.yaml"),
        RELAIS_USERS="alice:alice-pass-1,bob:bob-pass-2",
        CHAINLIT_AUTH_SECRET="test-secret-" + "x" * 40,
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        ANONYMIZED_TELEMETRY="False",
        PYTHONUNBUFFERED="1",
        RELAIS_WARM_START="false",  # test apps load lazily (CPU is shared); pass "true" to test warm start
    )
    env.update(extra)
    return env


def app_root(workdir: Path, port: int) -> Path:
    """A Chainlit app root of its own: Chainlit keeps session files in `<root>/.files` and wipes
    that folder on shutdown, so instances must not share one (config and welcome page linked)."""
    root = workdir / f"app-root-{port}"
    root.mkdir(parents=True, exist_ok=True)
    for name in (".chainlit", "chainlit.md", "public"):
        link = root / name
        if not link.exists():
            link.symlink_to(REPO_ROOT / name)
    for page in REPO_ROOT.glob("chainlit_*.md"):  # copied: Chainlit refuses a translated readme outside its root
        shutil.copyfile(page, root / page.name)
    return root


def chainlit_server(data_dir: Path, workdir: Path, port: int | None = None, **env: str) -> ServerProcess:
    port = port or free_port()
    root = app_root(workdir, port)
    args = [sys.executable, "-m", "chainlit", "run", str(APP_FILE), "--headless", "--host", "127.0.0.1", "--port", str(port)]
    return ServerProcess(args, port, relais_env(data_dir, CHAINLIT_APP_ROOT=str(root), **env), cwd=root, log=workdir / f"chainlit-{port}.log")


def agent_server(data_dir: Path, workdir: Path, port: int | None = None, **env: str) -> ServerProcess:
    port = port or free_port()
    args = [sys.executable, "-m", "cli.app", "agent", "serve", "--host", "127.0.0.1", "--port", str(port)]
    return ServerProcess(args, port, relais_env(data_dir, **env), cwd=REPO_ROOT, log=workdir / f"agent-{port}.log", health="/health")


def login(base_url: str, username: str, password: str) -> str:
    """The access token cookie of a password login (raises on a bad password)."""
    response = httpx.post(base_url + "/login", data={"username": username, "password": password}, timeout=10)
    response.raise_for_status()
    token = response.cookies.get("access_token")
    assert token, "no access_token cookie"
    return token


@dataclass
class Turn:
    """What the server sent during one task (between task_start and task_end)."""

    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    elements: list[dict[str, Any]] = field(default_factory=list)

    @property
    def texts(self) -> list[str]:
        return [m.get("output", "") for m in self.messages.values() if m.get("type") == "assistant_message"]

    @property
    def folded(self) -> list[str]:
        """Sections shown collapsed under an answer (a long plan after "what changed")."""
        return [s.get("output", "") for s in self.steps if (s.get("metadata") or {}).get("relais_folded")]

    @property
    def text(self) -> str:
        """What a person can read of the turn: the answers, and the folded sections once opened."""
        return "\n".join(self.texts + self.folded)


class ChatSession:
    """One browser tab's worth of socket.io conversation with a Chainlit server."""

    def __init__(self, base_url: str, token: str, chat_profile: str = "Assistant", thread_id: str | None = None) -> None:
        self.base_url, self.token, self.chat_profile = base_url, token, chat_profile
        self.thread_id = thread_id
        self.session_id = str(uuid.uuid4())
        self.sio = socketio.AsyncClient(reconnection=False)
        self._turn = Turn()
        self._tasks: asyncio.Queue[str] = asyncio.Queue()
        self.resumed: dict[str, Any] | None = None
        self.removed: list[str] = []  # ids of every remove_action received, in order
        self.resume_error: str | None = None
        self._resume_outcome = asyncio.Event()
        self._register()

    def _register(self) -> None:
        sio = self.sio

        @sio.on("new_message")
        async def _new(data: dict) -> None:
            self._record(data)

        @sio.on("update_message")
        async def _update(data: dict) -> None:
            self._record(data)

        @sio.on("stream_start")
        async def _stream_start(data: dict) -> None:
            self._record(data)

        @sio.on("stream_token")
        async def _token(data: dict) -> None:
            msg = self._turn.messages.setdefault(data["id"], {"id": data["id"], "output": "", "type": "assistant_message"})
            msg["output"] = msg.get("output", "") + data.get("token", "")

        @sio.on("action")
        async def _action(data: dict) -> None:
            self._turn.actions.append(data)

        @sio.on("remove_action")
        async def _remove_action(data: dict) -> None:
            # as the page does: the first button with that id goes (an answered prompt's buttons
            # restored at resume time and removed by the next turn are no longer clickable)
            self.removed.append(str(data.get("id")))
            actions = self._turn.actions
            index = next((i for i, action in enumerate(actions) if action.get("id") == data.get("id")), None)
            if index is not None:
                del actions[index]

        @sio.on("element")
        async def _element(data: dict) -> None:
            self._turn.elements.append(data)

        @sio.on("first_interaction")
        async def _first(data: dict) -> None:
            self.thread_id = data.get("thread_id") or self.thread_id

        @sio.on("resume_thread")
        async def _resume(data: dict) -> None:
            self.resumed = data
            self._resume_outcome.set()

        @sio.on("resume_thread_error")
        async def _resume_error(data: Any) -> None:
            self.resume_error = str(data)
            self._resume_outcome.set()

        @sio.on("task_start")
        async def _start(*_: Any) -> None:
            await self._tasks.put("start")

        @sio.on("task_end")
        async def _end(*_: Any) -> None:
            await self._tasks.put("end")

    def _record(self, data: dict) -> None:
        if data.get("type") in ("assistant_message", "user_message"):
            self._turn.messages[data["id"]] = {**self._turn.messages.get(data["id"], {}), **data}
        else:
            self._turn.steps.append(data)

    async def connect(self) -> "ChatSession":
        await self.sio.connect(
            self.base_url,
            socketio_path="/ws/socket.io",
            transports=["websocket"],
            headers={"Cookie": f"access_token={self.token}"},
            auth={"clientType": "webapp", "sessionId": self.session_id, "threadId": self.thread_id, "userEnv": "{}", "chatProfile": self.chat_profile},
            wait_timeout=20,
        )
        await self.sio.emit("connection_successful")
        await self._next_task_event("end", 30)  # connection_successful ends its own task
        if self.thread_id:  # resuming: wait for the thread's steps (or the refusal)
            await asyncio.wait_for(self._resume_outcome.wait(), 60)
            return self
        # on_chat_start runs as a task right after: let it finish before the first question
        try:
            await self._next_task_event("start", 15)
        except asyncio.TimeoutError:
            return self
        await self._next_task_event("end", 60)
        return self

    async def _next_task_event(self, kind: str, timeout: float) -> None:
        while True:
            if await asyncio.wait_for(self._tasks.get(), timeout) == kind:
                return

    async def _wait_task(self, timeout: float) -> None:
        await self._next_task_event("start", timeout)
        await self._next_task_event("end", timeout)

    async def ask(self, text: str, timeout: float = 120) -> Turn:
        self._turn = Turn()
        while not self._tasks.empty():
            self._tasks.get_nowait()
        message = {
            "id": str(uuid.uuid4()),
            "threadId": self.thread_id or "",
            "output": text,
            "name": "user",
            "type": "user_message",
            "createdAt": datetime.now(timezone.utc).isoformat(),
        }
        await self.sio.emit("client_message", {"message": message, "fileReferences": None})
        await self._wait_task(timeout)
        return self._turn

    async def click(self, action: dict[str, Any], timeout: float = 120) -> Turn:
        """Click an action button (the browser posts it to /project/action)."""
        self._turn = Turn()
        async with httpx.AsyncClient(cookies={"access_token": self.token}, timeout=timeout) as client:
            response = await client.post(self.base_url + "/project/action", json={"sessionId": self.session_id, "action": action})
            response.raise_for_status()
        await asyncio.sleep(0.5)  # socket events emitted by the callback may trail the HTTP reply
        return self._turn

    async def close(self) -> None:
        if self.sio.connected:
            await self.sio.disconnect()


async def list_threads(base_url: str, token: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(cookies={"access_token": token}, timeout=20) as client:
        response = await client.post(base_url + "/project/threads", json={"pagination": {"first": 50}, "filter": {}})
        response.raise_for_status()
        return response.json()["data"]
