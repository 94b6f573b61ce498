"""Shared helpers for the benchmarks: machine facts, timing, percentiles, tables, results on disk.

Every benchmark measures our code and a reference side by side in the same process and run,
so the ratio survives a noisy shared machine better than any absolute figure; the machine
facts (cores, CPU model, load average, torch threads) are recorded so a reader can judge.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Self

from relais.serving import free_port  # noqa: F401  (re-exported for the benchmarks)

REPO_ROOT = Path(__file__).resolve().parents[1]
SCIFACT_DIR = Path(os.environ.get("RELAIS_BENCH_SCIFACT", REPO_ROOT.parent / "shared" / "datasets" / "scifact"))

# --- facts ------------------------------------------------------------------------------------
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()

def machine_facts(*, torch_threads: bool = True) -> dict[str, Any]:
    """What a reader needs to weigh the numbers: cores, CPU, load, Python, library versions."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        usable = os.cpu_count() or 1
    facts: dict[str, Any] = {
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "cpu_model": cpu_model(),
        "load_avg_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
    }
    if torch_threads:
        try:
            import torch

            facts["torch_threads"] = torch.get_num_threads()
        except ImportError:
            facts["torch_threads"] = None
    versions = {}
    for dist in ("langgraph", "chromadb", "chainlit", "sentence-transformers", "torch", "httpx", "bm25s"):
        try:
            versions[dist] = version(dist)
        except PackageNotFoundError:
            pass
    facts["versions"] = versions
    return facts

def format_facts(facts: dict[str, Any]) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in facts.get("versions", {}).items())
    get = lambda key: facts.get(key, "?")
    return (
        f"machine: {get('cores')} cores ({get('usable_cores')} usable), {get('cpu_model')}, "
        f"load avg {get('load_avg_1m')}, Python {get('python')}, "
        f"torch threads {facts.get('torch_threads', 'n/a')}\n  {versions}"
    )

# --- timing and statistics --------------------------------------------------------------------
class Timer:
    """`with Timer() as t: ...; t.seconds` — perf_counter based."""

    def __enter__(self) -> Self:
        self.start = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start

def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default method); q in [0, 100]."""
    import numpy as np

    if not values:
        return float("nan")
    return float(np.percentile(np.asarray(values, dtype=float), q))

def median(values: Sequence[float]) -> float:
    return percentile(values, 50)

# --- results ----------------------------------------------------------------------------------
@dataclass
class Check:
    """One figure of ours against its reference, with the target it is judged by.

    `ratio` is ours/reference (throughput: higher is better; latency: lower is better); `delta`
    is ours - reference for additive overheads. `ok` is None when the issue sets no target.
    """

    label: str
    ours: float
    reference: float | None
    unit: str
    ratio: float | None = None
    delta: float | None = None
    target: str = ""
    ok: bool | None = None

@dataclass
class BenchResult:
    name: str
    title: str
    checks: list[Check] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    machine: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

def _fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    if abs(value) >= 100:
        text = f"{value:,.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}"
    return f"{text} {unit}".strip()

def check_rows(result: BenchResult) -> list[list[str]]:
    rows = []
    for c in result.checks:
        if c.ratio is not None:
            relation = f"{c.ratio:.2f}x"
        elif c.delta is not None:
            relation = f"{c.delta:+.2f} {c.unit}"
        else:
            relation = "-"
        verdict = {True: "ok", False: "MISS", None: "info"}[c.ok]
        rows.append([result.name, c.label, _fmt(c.ours, c.unit), _fmt(c.reference, c.unit), relation,
                     c.target or "-", verdict])
    if result.error:
        rows.append([result.name, "error", result.error[:60], "-", "-", "-", "ERROR"])
    return rows

HEADERS = ["bench", "measure", "ours", "reference", "ratio/delta", "target", "verdict"]

def table(rows: Sequence[Sequence[str]], headers: Sequence[str] = HEADERS) -> str:
    """A plain monospace table (pastes cleanly into a README or a report)."""
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    line = "  ".join("-" * w for w in widths)
    out = ["  ".join(str(h).ljust(w) for h, w in zip(headers, widths)), line]
    out += ["  ".join(str(v).ljust(w) for v, w in zip(row, widths)) for row in rows]
    return "\n".join(out)

def bench_dir() -> Path:
    """`<RELAIS_DATA_DIR>/bench`: the results (and nothing else) of `make bench`."""
    return data_dir() / "bench"

def data_dir() -> Path:
    """The user's data dir, resolved from the settings *before* any benchmark redirects it."""
    from relais.settings import Settings

    return Settings().data_dir

def report(result: BenchResult) -> Path:
    """Print one benchmark's figures and table, save its JSON; returns the JSON path."""
    print(f"\n== {result.title} ({result.seconds:.1f} s)")
    if result.machine:
        print(format_facts(result.machine))
    for key, value in result.figures.items():
        print(f"  {key}: {value}")
    for note in result.notes:
        print(f"  note: {note}")
    print(table(check_rows(result)))
    out = bench_dir() / f"{result.name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result.to_json(), indent=2))
    print(f"  -> {out}")
    return out

def run_main(name: str, title: str, body: Any) -> int:
    """Run `body(result)` with timing and error capture, report, exit code 0 unless it crashed."""
    result = BenchResult(name, title, machine=machine_facts())
    started = time.perf_counter()
    try:
        body(result)
    except Exception as exc:  # noqa: BLE001 - a broken bench must still print and save what it has
        import traceback

        traceback.print_exc()
        result.error = f"{type(exc).__name__}: {exc}"
    result.seconds = time.perf_counter() - started
    report(result)
    return 1 if result.error else 0

# --- environment ------------------------------------------------------------------------------
@contextlib.contextmanager
def pointed_at(folder: Path) -> Iterator[None]:
    """RELAIS_DATA_DIR = `folder` for this process (settings and KB caches cleared both ways)."""
    previous = os.environ.get("RELAIS_DATA_DIR")
    os.environ["RELAIS_DATA_DIR"] = str(folder)
    _forget_cached_settings()
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("RELAIS_DATA_DIR", None)
        else:
            os.environ["RELAIS_DATA_DIR"] = previous
        _forget_cached_settings()


@contextlib.contextmanager
def temp_data_dir(prefix: str = "relais-bench-") -> Iterator[Path]:
    """Point RELAIS_DATA_DIR at a fresh temp folder (settings and KB caches cleared both ways)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        with pointed_at(folder):
            yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _forget_cached_settings() -> None:
    from relais.settings import clear_settings_caches

    clear_settings_caches()
    if "knowledge.retrieval" in sys.modules:
        sys.modules["knowledge.retrieval"].clear_knowledge_base_cache()

def merge_embedding_caches(source: Path, target: Path) -> int:
    """Copy the vectors of `source`'s embedding-cache files into `target`'s (same file names).

    The cache is content-addressed (sha256 of the text), so merging can never give a text the
    wrong vector; it only saves re-encoding. Returns the number of rows offered.
    """
    import sqlite3
    from contextlib import closing

    offered = 0
    for src in sorted(source.glob("*.sqlite")):
        target.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(target / src.name, timeout=30)) as db, db:
            db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")
            db.execute("ATTACH DATABASE ? AS src", (str(src),))
            offered += db.execute("SELECT count(*) FROM src.vectors").fetchone()[0]
            db.execute("INSERT OR IGNORE INTO main.vectors (key, vec) SELECT key, vec FROM src.vectors")
        # DETACH happens when the connection closes
    return offered

def serve(app: Any, port: int | None = None) -> Any:
    """Serve an ASGI app on a loopback port (the kit's server helper, lifespan off)."""
    from relais.serving import serve as _serve

    return _serve(app, port, lifespan="off")
