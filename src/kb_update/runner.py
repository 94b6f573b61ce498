"""Driving a run: the checkpointer, progress events, approvals, resume, stats.

The CLI and the chat profile both use `KbUpdateRun`: iterate `stream()` for events; when it
ends on an `ApprovalNeeded`, ask a person and call `stream(answer)` to resume with
`Command(resume=answer)`. State lives in a SQLite checkpointer, so a paused run can also be
resumed later, from another process, by its thread id.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.errors import GraphRecursionError
from langgraph.types import Command

from kb_update.graph import Components, EngineConfig, build_graph
from kb_update.review import build_review
from kb_update.types import Attempt, UnitState


class RunawayRunError(RuntimeError):
    """The run hit its step limit (LangGraph recursion limit) before finishing."""


class StaleApproval(RuntimeError):
    """An answer to an approval that is no longer the pending one (answered already, or older)."""


# --- events --------------------------------------------------------------------------------
@dataclass(frozen=True)
class SplitDone:
    hits: int
    units: list[str]
    discarded: int
    engine: str
    briefs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class UnitStarted:
    unit: str
    attempt: int


@dataclass(frozen=True)
class UnitChecked:
    """One attempt finished and was gated (status is decided at the join)."""

    attempt: Attempt

    @property
    def passed(self) -> bool:
        return not self.attempt["failures"]


@dataclass(frozen=True)
class PublishProgress:
    """Publishing, as it goes: an article written (`path`), the index refresh started or done."""

    stage: str  # "written" | "reindex-start" | "reindex-done"
    path: str | None = None
    done: int = 0
    total: int = 0
    failed: bool = False


@dataclass(frozen=True)
class RoundDone:
    """The join after a round: each unit of the round is done, retried or escalated."""

    round: int
    status: dict[str, str]
    escalated: dict[str, str]


@dataclass(frozen=True)
class ApprovalNeeded:
    """The graph paused on `interrupt`: kind is "lesson" or "publish"."""

    kind: str
    prompt: str
    payload: dict[str, Any]
    interrupt_id: str = ""  # LangGraph's Interrupt.id: what a button or a reply answers


@dataclass(frozen=True)
class Finished:
    outcome: str  # "published" | "rejected" | "nothing-to-publish"
    stats: dict[str, Any]
    published: dict[str, Any] | None = None


RunEvent = SplitDone | UnitStarted | UnitChecked | RoundDone | PublishProgress | ApprovalNeeded | Finished


# --- checkpointer --------------------------------------------------------------------------
def checkpoint_path(settings: Any) -> Path:
    """The kb-update checkpoints file under the data dir."""
    return Path(settings.data_dir) / "kb_update.sqlite"


@contextlib.contextmanager
def sqlite_checkpointer(path: Path) -> Iterator[SqliteSaver]:
    """LangGraph's SQLite saver on `path` (usable from worker threads)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    try:
        yield SqliteSaver(conn)
    finally:
        conn.close()


def chat_runs(checkpointer: BaseCheckpointSaver, chat_thread: str) -> tuple[str | None, str]:
    """(latest run id of a chat thread or None, the id its next run gets).

    Runs of one chat thread are `<chat thread id>:<n>`: the pending approval of a conversation
    is found from the checkpoint by the chat thread id alone (after a reload, a restart, or on
    another instance), never from what a browser session remembered.
    """
    latest, n = None, 1
    while checkpointer.get_tuple({"configurable": {"thread_id": f"{chat_thread}:{n}", "checkpoint_ns": ""}}):
        latest, n = f"{chat_thread}:{n}", n + 1
    return latest, f"{chat_thread}:{n}"


def saved_job(checkpointer: BaseCheckpointSaver, thread_id: str) -> dict[str, Any] | None:
    """The job record a run was started with (to rebuild its components on resume)."""
    saved = checkpointer.get_tuple({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}})
    if saved is None:
        return None
    return saved.checkpoint.get("channel_values", {}).get("job")


# --- the run -------------------------------------------------------------------------------
@dataclass
class KbUpdateRun:
    """One kb-update run on one thread of a checkpointer."""

    parts: Components
    kb_dir: Path
    checkpointer: BaseCheckpointSaver
    config: EngineConfig = field(default_factory=EngineConfig)
    thread_id: str = field(default_factory=lambda: f"kb-update-{uuid.uuid4().hex[:12]}")
    job_record: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.graph = build_graph(self.parts, self.config).compile(checkpointer=self.checkpointer)
        self.started_at: float | None = None
        self.seconds = 0.0

    @property
    def run_config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.thread_id}, "recursion_limit": self.config.recursion_limit}

    def _started(self) -> bool:
        return bool(self.graph.get_state(self.run_config).values)

    def stream(self, resume: Any = None) -> Iterator[RunEvent]:
        """Run until the next approval or the end; `resume` answers the pending approval."""
        if self._started():
            if self.pending() is None:
                raise RuntimeError(f"run {self.thread_id} is not waiting for an approval")
            if resume is None:
                raise ValueError("a paused run needs an answer to resume (True/False or a dict)")
            graph_input: Any = Command(resume=resume)
        else:
            graph_input = {"kb_dir": str(self.kb_dir), "job": self.job_record}
        began = time.perf_counter()
        try:
            for mode, chunk in self.graph.stream(graph_input, self.run_config, stream_mode=["updates", "custom"]):
                yield from self._events(mode, chunk)
        except GraphRecursionError as exc:
            raise RunawayRunError(
                f"kb-update run {self.thread_id} stopped after {self.config.recursion_limit} graph steps "
                "(run-wide recursion limit) without finishing; nothing was published. Raise the limit "
                "only if the knowledge base really needs more rounds."
            ) from exc
        finally:
            self.seconds += time.perf_counter() - began
        state = self.graph.get_state(self.run_config)
        if not state.next and not state.interrupts:
            values = state.values
            yield Finished(outcome=values.get("outcome", "unknown"), stats=self.stats(),
                           published=values.get("published"))

    def _events(self, mode: str, chunk: Any) -> Iterator[RunEvent]:
        if mode == "custom" and isinstance(chunk, dict):
            if chunk.get("event") == "split":
                yield SplitDone(chunk["hits"], chunk["units"], chunk["discarded"], chunk["engine"],
                                chunk.get("briefs", {}))
            elif chunk.get("event") == "unit-start":
                yield UnitStarted(chunk["unit"], chunk["attempt"])
            elif chunk.get("event") == "publish-written":
                yield PublishProgress("written", chunk["path"], chunk["done"], chunk["total"])
            elif chunk.get("event") in ("reindex-start", "reindex-done"):
                yield PublishProgress(chunk["event"], total=chunk.get("total", 0), failed=chunk.get("failed", False))
            return
        if mode != "updates" or not isinstance(chunk, dict):
            return
        for node, update in chunk.items():
            if node == "__interrupt__":
                for item in update:
                    yield _approval(item)
            elif node == "unit" and update:
                for attempt in update.get("attempts", []):
                    yield UnitChecked(attempt)
            elif node == "assess" and update:
                state = self.graph.get_state(self.run_config).values
                ids = {a["unit_id"] for a in state.get("attempts", []) if a["round"] == state.get("round")}
                status: dict[str, UnitState] = update["status"]
                yield RoundDone(
                    round=state.get("round", 0),
                    status={uid: status[uid]["status"] for uid in sorted(ids)},
                    escalated={uid: status[uid]["escalation"] or "" for uid in sorted(ids)
                               if status[uid]["status"] == "escalated"},
                )

    def pending(self) -> ApprovalNeeded | None:
        """The approval this run waits for, if any."""
        state = self.graph.get_state(self.run_config)
        for item in state.interrupts:
            return _approval(item)
        return None

    def claim(self, interrupt_id: str) -> bool:
        """Take the right to answer this approval, once across processes (False: already taken).

        With the SQLite checkpointer the claim is a row in the same file (a primary key), so two
        tabs or two app instances sharing the data folder can never resume the same approval twice.
        """
        conn = getattr(self.checkpointer, "conn", None)
        if isinstance(conn, sqlite3.Connection):
            with self.checkpointer.lock if hasattr(self.checkpointer, "lock") else contextlib.nullcontext():
                conn.execute("CREATE TABLE IF NOT EXISTS kb_update_claims (interrupt_id TEXT PRIMARY KEY, "
                             "thread_id TEXT, at REAL)")
                cursor = conn.execute("INSERT OR IGNORE INTO kb_update_claims VALUES (?, ?, ?)",
                                      (interrupt_id, self.thread_id, time.time()))
                conn.commit()
                return cursor.rowcount == 1
        if interrupt_id in _CLAIMED:
            return False
        _CLAIMED.add(interrupt_id)
        return True

    def answer(self, resume: Any, interrupt_id: str) -> Iterator[RunEvent]:
        """Resume the pending approval `interrupt_id` exactly once; StaleApproval otherwise."""
        pending = self.pending()
        if pending is None or pending.interrupt_id != interrupt_id or not self.claim(interrupt_id):
            raise StaleApproval(f"approval {interrupt_id} of run {self.thread_id} is not pending")
        return self.stream(resume)

    def values(self) -> dict[str, Any]:
        return dict(self.graph.get_state(self.run_config).values)

    def stats(self) -> dict[str, Any]:
        """Units, retries, escalations, lessons and run time so far."""
        values = self.values()
        stats = dict(build_review(self.parts.job.summary(), values)["stats"]) if values.get("order") is not None else {}
        stats["seconds"] = round(self.seconds, 3)
        return stats


_CLAIMED: set[str] = set()  # claims of runs on an in-memory checkpointer (one process)


def _approval(item: Any) -> ApprovalNeeded:
    value = item.value if isinstance(item.value, dict) else {"prompt": str(item.value)}
    return ApprovalNeeded(value.get("kind", "approval"), value.get("prompt", ""), value, str(getattr(item, "id", "")))


Decide = Callable[[ApprovalNeeded], Any]


def drive(run: KbUpdateRun, decide: Decide, on_event: Callable[[RunEvent], None] | None = None) -> Finished:
    """Run to the end, asking `decide` at each approval (lessons, then the one publish approval)."""
    waiting_now = run.pending()  # a run resumed from its checkpoint may already be waiting
    answer: Any = decide(waiting_now) if waiting_now is not None else None
    while True:
        finished: Finished | None = None
        waiting: ApprovalNeeded | None = None
        for event in run.stream(answer):
            if on_event is not None:
                on_event(event)
            if isinstance(event, ApprovalNeeded):
                waiting = event
            elif isinstance(event, Finished):
                finished = event
        if finished is not None:
            return finished
        if waiting is None:
            raise RuntimeError("the run stopped without finishing or asking for an approval")
        answer = decide(waiting)


def approve_all(event: ApprovalNeeded) -> bool:
    """Scripted use only: approve every lesson and the publish."""
    return True
