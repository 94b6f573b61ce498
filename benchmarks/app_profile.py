"""Where a running app's time goes: a stack sampler and a SQLite statement counter, in-process.

Run a server under it: `python -m benchmarks.app_profile OUT.json -m chainlit run app.py ...`
(the rest is what `python` would get). No profiler ships in the venv (py-spy is not a
dependency), so this samples every thread's Python stack with `sys._current_frames()` every
few milliseconds and tells, per kind of thread (the event loop, the app's worker pool, others),
how often it was busy and in which functions (own = the innermost frame; inclusive = anywhere
on the stack). A thread waiting in `select`/`epoll`/a lock/a queue is idle. Native code that
releases the GIL (torch, tokenizers) shows as the Python frame that called it.

Every `sqlite3` connection the process opens gets a trace callback: statements, writes
(INSERT/UPDATE/DELETE/REPLACE), commits and connections per database file, so "how many
SQLite writes does a turn cost" is counted, not guessed.

SIGUSR1 starts a new measurement (counters and samples reset: the load begins); the summary is
written to OUT.json every 2 s and at exit.
"""

from __future__ import annotations

import atexit
import faulthandler
import gc
import json
import os
import re
import runpy
import signal
import sqlite3
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

INTERVAL_S = 0.02
WRITE_EVERY_S = 2.0
TOP = 15
IDLE_LEAVES = {  # (file name, function): a thread blocked here is waiting, not working
    ("selectors.py", "select"), ("threading.py", "wait"), ("threading.py", "_wait_for_tstate_lock"),
    ("thread.py", "_worker"), ("queue.py", "get"), ("threading.py", "acquire"), ("_base.py", "wait"),
    ("connection.py", "wait"), ("base_events.py", "_run_once"),
    ("runners.py", "run"),  # uvloop: its loop (and its wait) is C under asyncio.run
    ("core.py", "_connection_worker_thread"),  # aiosqlite's thread, blocked on its queue
}
WRITE_VERBS = ("INSERT", "UPDATE", "DELETE", "REPLACE")
PROJECT = ("chatbot/", "assistant/", "knowledge/", "relais/", "coach/", "handoff_audit/", "booking/", "kb_update/",
           "debate/", "cli/")
TURN_MARK = os.environ.get("RELAIS_PROFILE_TURN_MARK", "handlers.py:on_message")  # a coroutine every turn runs


def thread_kind(name: str) -> str:
    if name == "MainThread":
        return "event loop"
    if name.startswith(("relais-worker", "asyncio_")):
        return "worker pool"
    if name.startswith("profile-sampler"):
        return "sampler"
    return "other threads"


def thread_cpu() -> dict[int, float]:
    """CPU seconds per thread of this process (native id -> user + system), from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    out: dict[int, float] = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(task.name)] = (int(fields[11]) + int(fields[12])) / ticks
    return out


def cpu_by_kind(before: dict[int, float]) -> dict[str, float]:
    """CPU seconds per thread kind since `before`; threads Python does not know (torch's,
    Chroma's) are "native threads"."""
    kinds = {t.native_id: thread_kind(t.name) for t in threading.enumerate()}
    out: Counter[str] = Counter()
    for tid, seconds in thread_cpu().items():
        out[kinds.get(tid, "native threads")] += seconds - before.get(tid, 0.0)
    return {kind: round(seconds, 2) for kind, seconds in out.items()}


def where(frame: FrameType) -> str:
    code = frame.f_code
    path = code.co_filename
    for marker in ("/site-packages/", "/src/", "/lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{path}:{code.co_name}"


def await_chain(task: Any) -> list[str]:
    """Where a task is: its coroutines from the outermost to the innermost (then what it awaits)."""
    chain: list[str] = []
    coro = task.get_coro()
    while coro is not None and len(chain) < 200:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None) or getattr(coro, "gi_frame", None)
        if frame is None:
            break
        chain.append(where(frame))
        if getattr(coro, "cr_running", False) or getattr(coro, "gi_running", False):
            break  # on the CPU, awaiting nothing; reading what a running coroutine awaits from this
            # thread crashed CPython 3.11 (a segfault here killed an agent service mid-mix). Not
            # `ag_running`: an async generator has it while suspended in an await too
        coro = (getattr(coro, "cr_await", None) or getattr(coro, "ag_await", None)
                or getattr(coro, "gi_yieldfrom", None))
        if type(coro).__name__ == "async_generator_asend":  # `async for` over an async generator:
            coro = next((g for g in gc.get_referents(coro) if hasattr(g, "ag_frame")), coro)  # go into it
    if coro is not None and not hasattr(coro, "cr_frame"):
        chain.append(type(coro).__name__)  # a Future, a gathering future, an async generator's asend
    return chain


def live_tasks() -> list[Any]:
    """Every asyncio task of the process (read from another thread: retried if it changes).

    Never imports: the sampler starts before the app, and an import of asyncio from this thread
    while the app's thread is importing it fails the app's own import ("partially initialized
    module 'asyncio.tasks'": the server exited before it was up). Until asyncio is loaded, no task."""
    all_tasks = getattr(sys.modules.get("asyncio.tasks"), "_all_tasks", None)
    if all_tasks is None:
        return []
    for _ in range(5):
        try:
            return list(all_tasks)
        except RuntimeError:
            continue
    return []


class Sampler:
    """Per thread kind: samples, busy samples, own and inclusive function counts."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with getattr(self, "lock", threading.Lock()):
            self.started = time.monotonic()
            self.cpu_before = thread_cpu()
            self.ticks = 0
            self.samples: Counter[str] = Counter()
            self.busy: Counter[str] = Counter()
            self.own: dict[str, Counter[str]] = {}
            self.inclusive: dict[str, Counter[str]] = {}
            self.turn_tasks = 0  # samples of tasks running a turn (summed over tasks)
            self.turn_at: Counter[str] = Counter()  # innermost project coroutine -> what it awaits

    def sample(self) -> None:
        names = {t.ident: t.name for t in threading.enumerate()}
        me = threading.get_ident()
        frames = sys._current_frames()
        with self.lock:
            self.ticks += 1
            for ident, frame in frames.items():
                if ident == me:
                    continue
                kind = thread_kind(names.get(ident, "?"))
                self.samples[kind] += 1
                leaf = frame.f_code
                if (os.path.basename(leaf.co_filename), leaf.co_name) in IDLE_LEAVES:
                    continue
                self.busy[kind] += 1
                self.own.setdefault(kind, Counter())[where(frame)] += 1
                seen: set[str] = set()
                current: FrameType | None = frame
                while current is not None:
                    seen.add(where(current))
                    current = current.f_back
                self.inclusive.setdefault(kind, Counter()).update(seen)

    def sample_turns(self) -> None:
        """Turn tasks (a coroutine of `TURN_MARK` on their chain): where each one waits."""
        for task in live_tasks():
            try:
                chain = await_chain(task)
            except (AttributeError, ValueError, RuntimeError):
                continue
            if not any(TURN_MARK in link for link in chain):
                continue
            ours = [link for link in chain if link.startswith(PROJECT)]
            libraries = [link for link in chain if "/" in link and ".11/" not in link]
            deepest = ours[-1] if ours else chain[0]
            tail = [link for link in [libraries[-1] if libraries else "", *chain[-2:]] if link and link != deepest]
            with self.lock:
                self.turn_tasks += 1
                self.turn_at[" -> ".join([deepest, *tail])] += 1

    def run(self) -> None:
        while True:
            time.sleep(INTERVAL_S)
            self.sample()
            self.sample_turns()

    def summary(self) -> dict[str, Any]:
        with self.lock:
            kinds = {}
            for kind, n in self.samples.items():
                ticks = max(self.ticks, 1)
                kinds[kind] = {
                    "threads (mean)": round(n / ticks, 1),
                    "busy (mean threads)": round(self.busy[kind] / ticks, 2),
                    "own": [(name, round(c / ticks, 3)) for name, c in self.own.get(kind, Counter()).most_common(TOP)],
                    "inclusive": [(name, round(c / ticks, 3))
                                  for name, c in self.inclusive.get(kind, Counter()).most_common(TOP * 2)],
                }
            return {"seconds": round(time.monotonic() - self.started, 1), "ticks": self.ticks, "kinds": kinds,
                    "cpu seconds": cpu_by_kind(self.cpu_before),
                    "turn tasks (mean in flight)": round(self.turn_tasks / max(self.ticks, 1), 2),
                    "turn tasks wait at": [(name, round(c / max(self.turn_tasks, 1), 3))
                                           for name, c in self.turn_at.most_common(TOP * 2)]}


TABLE_AFTER = re.compile(r'\b(?:INTO|FROM|TABLE(?:\s+IF\s+NOT\s+EXISTS)?|INDEX(?:\s+IF\s+NOT\s+EXISTS)?)\s+"?(\w+)',
                         re.IGNORECASE)


def signature(sql: str) -> str:
    """`VERB table` of a statement (`BEGIN`, `COMMIT`, `PRAGMA` alone)."""
    words = sql.split(None, 2)
    if not words:
        return "?"
    verb = words[0].upper()
    if verb == "UPDATE" and len(words) > 1:
        return f"UPDATE {words[1].strip(chr(34))}"
    match = TABLE_AFTER.search(sql)
    return f"{verb} {match.group(1)}" if match and verb in ("INSERT", "DELETE", "SELECT", "CREATE", "REPLACE") else verb


class SqliteCounter:
    """Statements per database file and kind (`VERB table`), with the seconds spent in them
    (lock waits included), through a connection factory on every `sqlite3` connection."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: dict[str, Counter[str]] = {}
        self.seconds: dict[str, Counter[str]] = {}
        self.original = sqlite3.connect

    def reset(self) -> None:
        with self.lock:
            self.counts, self.seconds = {}, {}

    def count(self, database: str, what: str, seconds: float = 0.0) -> None:
        with self.lock:
            self.counts.setdefault(database, Counter())[what] += 1
            self.seconds.setdefault(database, Counter())[what] += seconds

    def connection_class(self, name: str) -> type[sqlite3.Connection]:
        counter = self

        def timed(call: Any, sql: str, *args: Any) -> Any:
            started = time.perf_counter()
            try:
                return call(sql, *args)
            finally:
                counter.count(name, signature(sql), time.perf_counter() - started)

        class TimedCursor(sqlite3.Cursor):
            def execute(self, sql: str, *args: Any) -> Any:  # type: ignore[override]
                return timed(super().execute, sql, *args)

            def executemany(self, sql: str, *args: Any) -> Any:  # type: ignore[override]
                return timed(super().executemany, sql, *args)

        class TimedConnection(sqlite3.Connection):
            def cursor(self, factory: Any = TimedCursor) -> Any:  # type: ignore[override]
                return super().cursor(factory)

            def execute(self, sql: str, *args: Any) -> Any:  # type: ignore[override]
                return self.cursor().execute(sql, *args)

            def commit(self) -> None:
                started = time.perf_counter()
                try:
                    super().commit()
                finally:
                    counter.count(name, "commit()", time.perf_counter() - started)

        return TimedConnection

    def connect(self, database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        name = os.path.basename(str(database)) or str(database)
        if "factory" not in kwargs and len(args) < 5:
            kwargs["factory"] = self.connection_class(name)
        conn = self.original(database, *args, **kwargs)
        self.count(name, "connect")
        return conn

    def install(self) -> None:
        sqlite3.connect = self.connect  # type: ignore[assignment]
        sqlite3.dbapi2.connect = self.connect  # type: ignore[attr-defined]  (SQLAlchemy's pysqlite calls this one)

    def summary(self) -> dict[str, dict[str, list[float]]]:
        """database -> kind -> [count, seconds]."""
        with self.lock:
            return {db: {kind: [n, round(self.seconds[db][kind], 3)] for kind, n in c.most_common()}
                    for db, c in self.counts.items()}


def install(out: Path) -> None:
    """Start sampling and counting now; SIGUSR1 resets both; the summary goes to `out`."""
    sampler, sql = Sampler(), SqliteCounter()
    sql.install()

    def write() -> None:
        tmp = out.with_suffix(".tmp")
        tmp.write_text(json.dumps({"threads": sampler.summary(), "sqlite": sql.summary()}, indent=1))
        tmp.replace(out)

    def writer() -> None:
        while True:
            time.sleep(WRITE_EVERY_S)
            write()

    def on_reset(*_: Any) -> None:
        sampler.reset()
        sql.reset()

    signal.signal(signal.SIGUSR1, on_reset)
    threading.Thread(target=sampler.run, name="profile-sampler", daemon=True).start()
    threading.Thread(target=writer, name="profile-sampler-writer", daemon=True).start()
    atexit.register(write)


def format_summary(data: dict[str, Any], turns: int, top: int = 8) -> list[str]:
    """A few lines: busy threads per kind, their top functions, SQLite statements per turn."""
    threads = data["threads"]
    cpu = threads.get("cpu seconds", {})
    lines = [f"profile over {threads['seconds']} s ({threads['ticks']} samples every {INTERVAL_S * 1000:.0f} ms); "
             f"CPU s: {sum(cpu.values()):.1f} = " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(cpu.items()))]
    for kind, row in sorted(threads["kinds"].items()):
        if kind == "sampler":
            continue
        lines.append(f"  {kind}: {row['busy (mean threads)']} busy of {row['threads (mean)']} threads (mean)")
        lines += [f"    own {share:.2f}  {name}" for name, share in row["own"][:top]]
    if threads.get("turn tasks wait at"):
        lines.append(f"  turn tasks: {threads['turn tasks (mean in flight)']} in flight (mean); share of their time "
                     "by innermost own coroutine -> what it awaits:")
        lines += [f"    {share:.2f}  {name}" for name, share in threads["turn tasks wait at"][:top * 2]]
    turns = max(turns, 1)
    for db, kinds in sorted(data["sqlite"].items()):
        writes = sum(n for kind, (n, _) in kinds.items() if kind.split()[0] in WRITE_VERBS)
        commits = sum(n for kind, (n, _) in kinds.items() if kind in ("COMMIT", "commit()"))
        statements = sum(n for kind, (n, _) in kinds.items() if kind != "connect")
        seconds = sum(sec for _, sec in kinds.values())
        lines.append(f"  sqlite {db}: per turn {statements / turns:.1f} statements, {writes / turns:.1f} writes, "
                     f"{commits / turns:.1f} commits, {kinds.get('connect', [0])[0] / turns:.1f} connections; "
                     f"{seconds:.1f} s in SQLite in all")
        lines += [f"    {n / turns:5.1f}/turn {sec:6.2f} s  {kind}" for kind, (n, sec) in list(kinds.items())[:top]]
    return lines


def main() -> None:
    out = Path(sys.argv[1])
    # a server that dies under load says where (an agent service vanished mid-mix once, log silent)
    faulthandler.enable()
    install(out)
    rest = sys.argv[2:]
    if rest[:1] != ["-m"] or len(rest) < 2:
        raise SystemExit("usage: python -m benchmarks.app_profile OUT.json -m MODULE [ARGS...]")
    sys.argv = [rest[1], *rest[2:]]
    runpy.run_module(rest[1], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
