"""Shared scaffolding for the fault, restart, load, security and scale-out tests.

Why it exists: those tests all run the real app (Chainlit + the coach service as subprocesses)
on an ingested knowledge base, talk to it like a browser, kill and restart it, and then look
at what was persisted. The pieces they share live here:

- `ingested_data_dir(dest, cache_root)` (`tests.demo_index`): a data dir with the demo KB already
  ingested, copied from one cached ingest.
- `Chat`: the lead's `ChatSession`, plus the turn being streamed and clicks by label.
- `Stack`: one app instance (Chainlit + coach service) that can be started, killed -9 and
  restarted on the same ports and data dir.
- Readers of what was persisted: a Chainlit thread over its HTTP API, a coach thread through
  `coach.CoachRunner` on the same checkpointer the service uses.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.chainlit_driver import (
    ChatSession,
    ServerProcess,
    Turn,
    agent_server,
    chainlit_server,
    login,
    relais_env,
    start_together,
)
from tests.conftest import REPO_ROOT, free_port

USERS = {"alice": "alice-pass-1", "bob": "bob-password-2", "carol": "carol-pass-3", "dave": "dave-password-4"}  # >= 12 chars: scale runs share a database
USERS_ENV = ",".join(f"{u}:{p}" for u, p in USERS.items())
MEAT_AND_FISH = ("chicken", "beef", "turkey", "pork", "salmon", "tuna", "fish", "shrimp", "ham")


# --- a browser-like chat session ---------------------------------------------------------------
class Chat(ChatSession):
    """`ChatSession` plus what these tests need: a start that waits for `on_chat_start` however
    busy the server is, the turn in progress, and clicking a choice by label."""

    async def connect(self, timeout: float = 90) -> Chat:
        """A new chat: wait for `on_chat_start`'s own task to end (this app always defines it).
        `ChatSession.connect` gives it 2 s to begin, too short when 16 sessions connect at once:
        its task_end would then end the first question's turn."""
        if self.thread_id is not None:
            await super().connect()
            return self
        await self.sio.connect(
            self.base_url,
            socketio_path="/ws/socket.io",
            transports=["websocket"],
            headers={"Cookie": f"access_token={self.token}"},
            auth={"clientType": "webapp", "sessionId": self.session_id, "threadId": None, "userEnv": "{}",
                  "chatProfile": self.chat_profile},
            wait_timeout=20,
        )
        await self.sio.emit("connection_successful")
        for kind in ("end", "start", "end"):  # connection_successful's task, then on_chat_start's
            await self._next_task_event(kind, timeout)
        return self

    @property
    def current(self) -> Turn:
        """The turn being received right now (to watch tokens arrive while `ask` is pending)."""
        return self._turn

    async def click_label(self, label: str, actions: list[dict[str, Any]], timeout: float = 120) -> Turn:
        """Click the quick choice `label` among `actions`; wait until the agent's next prompt (or an
        error) arrived — action callbacks run outside Chainlit's task_start/task_end."""
        action = next(a for a in actions if a.get("label") == label)
        turn = await self.click(action, timeout=timeout)
        await wait_until(lambda: bool(turn.actions) or "⚠️" in turn.text, timeout, f"no answer after clicking {label}")
        await asyncio.sleep(0.3)
        return turn


async def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.05)


def login_as(base_url: str, user: str) -> str:
    return login(base_url, user, USERS[user])


async def open_chat(base_url: str, user: str, thread_id: str | None = None, profile: str = "Assistant") -> Chat:
    chat = Chat(base_url, login_as(base_url, user), chat_profile=profile, thread_id=thread_id)
    await chat.connect()
    if thread_id is not None and chat.resumed is None:
        raise RuntimeError(f"thread {thread_id} was not resumed: {chat.resume_error}")
    return chat


_CALL = re.compile(r"^[A-Za-z_][\w.]*\(.*\)$", re.DOTALL)  # a tool call label: name(args)


def tool_labels(turn: Turn) -> list[str]:
    """The agent's tool calls shown as steps (`name(args)`), in order; other tool-type steps (the
    hand-off audit) and a step's empty first emission are left out."""
    final: dict[str, dict[str, Any]] = {}
    for step in turn.steps:
        if step.get("type") == "tool":
            final[step.get("id") or str(len(final))] = step
    return [str(s.get("output") or "") for s in final.values() if _CALL.match(str(s.get("output") or ""))]


def coach_answered(turn: Turn) -> bool:
    """The turn came from the coach: a tool-call step and the constraint prompt's quick choices."""
    return bool(tool_labels(turn)) and bool(turn.actions)


async def settle_elements(turn: Turn, timeout: float = 3) -> list[dict[str, Any]]:
    """Element events may trail the end of Chainlit's task by a moment."""
    deadline = time.monotonic() + timeout
    while not turn.elements and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return turn.elements


# --- one app instance ---------------------------------------------------------------------------
def app_root(work: Path, name: str) -> Path:
    """A Chainlit app root of its own: the project's `.chainlit/` and `chainlit.md`, symlinked.

    Why: Chainlit keeps session files under `<app root>/.files` and deletes that whole folder when
    a server shuts down, so every instance started from the repo root (other tests, other stacks)
    would wipe the files of the ones still running — sources attached to answers then fail."""
    root = work / name
    root.mkdir(parents=True, exist_ok=True)
    for entry in (".chainlit", "chainlit.md", "public"):
        source, link = REPO_ROOT / entry, root / entry
        if source.exists() and not link.exists():
            link.symlink_to(source)
    return root


@dataclass
class Stack:
    """Chainlit + the coach service on fixed ports over one data dir (SQLite unless env says)."""

    work: Path
    data_dir: Path
    env: dict[str, str] = field(default_factory=dict)
    agent_env: dict[str, str] = field(default_factory=dict)
    app_port: int = field(default_factory=free_port)
    agent_port: int = field(default_factory=free_port)
    agent: ServerProcess | None = None
    app: ServerProcess | None = None

    def __post_init__(self) -> None:
        self.env = {"RELAIS_USERS": USERS_ENV, **self.env}
        self.agent = self.agent or agent_server(self.data_dir, self.work, port=self.agent_port, **self.env, **self.agent_env)
        app_env = {"ENABLE_ORCHESTRATOR": "true", "EXTERNAL_AGENT_URL": f"http://127.0.0.1:{self.agent_port}", **self.env}
        if self.app is None:
            self.app = chainlit_server(self.data_dir, self.work, port=self.app_port, **app_env)
            self.app.cwd = app_root(self.work, f"app-root-{self.app_port}")

    @property
    def url(self) -> str:
        assert self.app is not None
        return self.app.url

    def start(self) -> Stack:
        assert self.agent is not None and self.app is not None
        start_together((self.agent, 180), (self.app, 180))  # side by side: each slower, together sooner
        return self

    def ensure_running(self) -> Stack:
        """Start whichever of the two is not running (a test that crashed one may have failed
        before its restart): a stack shared by several tests hands each one a running pair."""
        assert self.agent is not None and self.app is not None
        for proc, timeout in ((self.agent, 90), (self.app, 180)):
            if proc.proc is None or proc.proc.poll() is not None:
                proc.start(timeout=timeout)
        return self

    def kill9(self) -> None:
        """Crash both processes at once: no shutdown hooks, no flush."""
        assert self.agent is not None and self.app is not None
        self.app.kill9()
        self.agent.kill9()

    def stop(self) -> None:
        for proc in (self.app, self.agent):
            if proc is not None:
                proc.stop()

    def replace_agent(self, proc: ServerProcess) -> None:
        """Serve the coach with another command on the same port (e.g. the real one after a fake)."""
        if self.agent is not None:
            self.agent.stop()
        self.agent = proc

    def logs(self) -> str:
        return "\n".join(p.logs() for p in (self.app, self.agent) if p is not None and p.log_path.exists())


def slow_agent_server(data_dir: Path, work: Path, port: int, delay_s: float = 0.03, **env: str) -> ServerProcess:
    """The real coach service with a slow-streaming scripted model (see `slow_agent.py`)."""
    args = [sys.executable, "-m", "tests.resilience.slow_agent", "--port", str(port), "--delay", str(delay_s)]
    return ServerProcess(args, port, relais_env(data_dir, **{"RELAIS_USERS": USERS_ENV, **env}), cwd=REPO_ROOT,
                         log=work / f"slow-agent-{port}.log", health="/health")


# --- what was persisted ---------------------------------------------------------------------------
def get_thread(base_url: str, token: str, thread_id: str) -> httpx.Response:
    return httpx.get(f"{base_url}/project/thread/{thread_id}", cookies={"access_token": token}, timeout=20)


def user_messages(thread: dict[str, Any]) -> list[str]:
    """The user's messages of a persisted Chainlit thread, in order."""
    steps = sorted(thread.get("steps") or [], key=lambda s: s.get("createdAt") or "")
    return [s.get("output") or "" for s in steps if s.get("type") == "user_message"]


def thread_metadata(thread: dict[str, Any]) -> dict[str, Any]:
    import json

    raw = thread.get("metadata")
    if isinstance(raw, str):
        return json.loads(raw or "{}")
    return raw or {}


async def coach_thread(checkpoint_target: str, thread_id: str) -> tuple[dict[str, Any], list[str]]:
    """(state summary, the person's messages) of a coach thread, read through `coach.CoachRunner`
    on the checkpointer the service writes (SQLite file or Postgres URL)."""
    from coach.runner import CoachRunner

    async with CoachRunner.open(model=None, checkpoint_target=checkpoint_target) as runner:
        state = await runner.state(thread_id)
        history = await runner.history(thread_id)
    return state, [m["content"] for m in history if m["role"] == "user"]


def checkpoint_file(data_dir: Path) -> str:
    """The coach service's default SQLite checkpoint under a data dir (`Settings.checkpoint_target`)."""
    return str(data_dir / "checkpoints.db")
