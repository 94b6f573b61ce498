"""Which nodes ran, read from a LangGraph run's `tasks` / `debug` stream (starts, results,
errors, interrupts), never from the graph's own account."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from handoff_audit.builders import utcnow


@dataclass
class TaskRecord:
    """One node execution seen on the stream (no inputs or outputs are kept)."""

    id: str
    name: str
    started_at: datetime
    triggers: tuple[str, ...] = ()
    finished: bool = False
    error: bool = False
    interrupted: bool = False


def _parse_time(value: Any) -> datetime | None:
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return None
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return None


def _split_part(part: Any) -> tuple[tuple[str, ...], str | None, Any]:
    """(namespace, mode, data) from a v2 dict part, a `(mode, chunk)` or `(ns, mode, chunk)` tuple."""
    if isinstance(part, Mapping) and "type" in part and "data" in part:
        return tuple(part.get("ns") or ()), str(part["type"]), part["data"]
    if isinstance(part, tuple) and len(part) == 3:
        return tuple(part[0] or ()), str(part[1]), part[2]
    if isinstance(part, tuple) and len(part) == 2 and isinstance(part[0], str):
        return (), part[0], part[1]
    return (), None, part


class TaskLog:
    """Root-graph task starts and results, from `stream_mode` "tasks" and/or "debug".

    "updates" alone is accepted as coarser evidence (which nodes ran, timed when observed);
    interrupts and triggers need "tasks" or "debug"."""

    def __init__(self, keep_writes: Iterable[str] = (), keep_inputs: Iterable[str] = ()) -> None:
        self.tasks: dict[str, TaskRecord] = {}
        self.order: list[str] = []
        self._task_events = False
        self._keep_writes = frozenset(keep_writes)
        self._keep_inputs = frozenset(keep_inputs)
        self.writes: list[tuple[str, str, Any]] = []  # (node, channel, value) of kept channels
        self.inputs: dict[str, Mapping[str, Any]] = {}  # task id -> the state it received

    def observe(self, part: Any, at: datetime | None = None) -> None:
        namespace, mode, data = _split_part(part)
        if namespace or not isinstance(data, Mapping):
            return  # subgraph internals are the subgraph's business
        if mode == "debug":
            kind, payload = data.get("type"), data.get("payload")
            if kind in ("task", "task_result") and isinstance(payload, Mapping):
                self._task(payload, _parse_time(data.get("timestamp")) or at, start=kind == "task")
        elif mode == "tasks":
            self._task(data, at, start="triggers" in data or "input" in data)
        if mode == "updates":
            for name, update in data.items():
                self._keep(str(name), update.items() if isinstance(update, Mapping) else ())
        if mode == "updates" and not self._task_events:
            # Coarser evidence when only "updates" is streamed: the node ran (no id, no triggers).
            for name in data:
                if not str(name).startswith("__"):
                    key = f"updates:{len(self.order)}:{name}"
                    self.tasks[key] = TaskRecord(key, str(name), at or utcnow(), finished=True)
                    self.order.append(key)

    def _task(self, payload: Mapping[str, Any], at: datetime | None, *, start: bool) -> None:
        if not self._task_events:  # precise evidence replaces the coarse one
            self._task_events = True
            self.tasks.clear()
            self.order.clear()
        task_id, name = str(payload.get("id")), str(payload.get("name"))
        record = self.tasks.get(task_id)
        if start and name in self._keep_inputs and isinstance(payload.get("input"), Mapping):
            self.inputs.setdefault(task_id, payload["input"])
        result = payload.get("result")
        if not start and isinstance(result, Mapping):  # v2 parts: {channel: value}
            self._keep(name, result.items())
        elif not start and isinstance(result, (list, tuple)):  # v1 parts: [(channel, value)]
            self._keep(name, [w for w in result if isinstance(w, (list, tuple))])
        if start:
            if record is None or record.finished:  # a resumed node re-runs under the same id
                self.tasks[task_id] = TaskRecord(
                    task_id, name, at or utcnow(), tuple(payload.get("triggers") or ())
                )
                if task_id in self.order:
                    self.order.remove(task_id)
                self.order.append(task_id)
            return
        if record is None:
            return
        record.finished = True
        record.error = bool(payload.get("error"))
        record.interrupted = bool(payload.get("interrupts"))

    def _keep(self, node: str, writes: Iterable[Any]) -> None:
        for write in writes:
            if len(write) == 2 and write[0] in self._keep_writes:
                entry = (node, str(write[0]), write[1])
                if entry not in self.writes:  # "updates" and "tasks" may both report it
                    self.writes.append(entry)

    def runs(self, names: Iterable[str] | None = None) -> list[TaskRecord]:
        wanted = set(names) if names is not None else None
        return [self.tasks[i] for i in self.order if wanted is None or self.tasks[i].name in wanted]
