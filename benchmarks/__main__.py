"""`python -m benchmarks` (what `make bench` runs): all ten benchmarks within a time budget.

Each benchmark runs in its own process (a cold start must be cold, and one crash must not take
the others down), prints its own figures, and saves `<data dir>/bench/<name>.json`; this driver
then prints one summary table and writes `<data dir>/bench/latest.json`.

The slow part on a cold machine is embedding SciFact for the retrieval benchmark, so that one
runs last and gets whatever remains of the budget for encoding (the vectors are cached, so the
next run has the full 10k+ chunk index).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from datetime import UTC, datetime
from typing import Any

from benchmarks._common import (
    REPO_ROOT,
    BenchResult,
    Check,
    bench_dir,
    check_rows,
    format_facts,
    machine_facts,
    table,
)

ORDER = ["ingest", "retrieval", "sse", "coach", "coldstart", "answers", "app_answers", "sources",
         "defaults", "load"]  # numbering of the issues
RUN_ORDER = ["ingest", "defaults", "sse", "coach", "coldstart", "answers", "app_answers", "load", "sources",
             "retrieval"]  # the adaptive one last
DEFAULTS_FULL_S = 420.0  # the shipped-defaults bench indexes Bitwarden too when this much budget remains
LOAD_FULL_S = 420.0  # fifty conversations on one instance and through nginx (not the short twenty) with this much budget left
MODULES = {"sources": "benchmarks.answer_sources_cnil"}  # default: benchmarks.bench_<name>
RETRIEVAL_RESERVE_S = 180.0  # model load, chunking, index build and the timed queries


def args_for(name: str, elapsed: float, budget: float) -> list[str]:
    if name == "defaults":
        return [] if budget - elapsed >= DEFAULTS_FULL_S else ["--short"]
    if name == "load":
        return ["--nginx"] if budget - elapsed >= LOAD_FULL_S else ["--short"]
    if name == "coldstart":
        return ["--repeats", "2" if elapsed < budget * 0.45 else "1"]
    if name == "retrieval":
        remaining = budget - elapsed
        encode = max(20.0, remaining - RETRIEVAL_RESERVE_S)
        return ["--encode-budget", f"{encode:.0f}", "--query-budget", "60"]
    return []


def load_result(name: str) -> BenchResult:
    data = json.loads((bench_dir() / f"{name}.json").read_text())
    checks = [Check(**c) for c in data.pop("checks", [])]
    return BenchResult(**{**data, "checks": checks})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the Relais performance benchmarks.")
    parser.add_argument("--budget", type=float, default=540.0,
                        help="seconds for the whole run (default 540, under make bench's 10 minutes)")
    parser.add_argument("--only", nargs="*", choices=ORDER, help="run only these benchmarks")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed, too")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    facts = machine_facts()
    print("Relais performance benchmarks — ours vs a reference, measured side by side in this run")
    print(format_facts(facts))
    out_dir = bench_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, BenchResult] = {}
    for name in [n for n in RUN_ORDER if not args.only or n in args.only]:
        (out_dir / f"{name}.json").unlink(missing_ok=True)  # never report a stale result
        elapsed = time.perf_counter() - started
        module = MODULES.get(name, f"benchmarks.bench_{name}")
        cmd = [sys.executable, "-m", module, *args_for(name, elapsed, args.budget)]
        print(f"\n$ {' '.join(cmd[1:])}   [{elapsed:.0f} s elapsed]", flush=True)
        bench_started = time.perf_counter()
        try:
            subprocess.run(cmd, cwd=REPO_ROOT, timeout=max(120.0, args.budget * 1.5 - elapsed), check=False)
        except subprocess.TimeoutExpired:
            print(f"  {name}: timed out", flush=True)
        try:
            results[name] = load_result(name)
        except (OSError, ValueError, TypeError) as exc:
            results[name] = BenchResult(name, name, seconds=time.perf_counter() - bench_started,
                                        error=f"no result ({type(exc).__name__})")

    total = time.perf_counter() - started
    ordered = [results[n] for n in ORDER if n in results]
    rows = [row for r in ordered for row in check_rows(r)]
    print("\n== Summary (ratio = ours / reference; delta = ours - reference)")
    print(format_facts(facts))
    print(table(rows))
    times = ", ".join(f"{r.name} {r.seconds:.0f} s" for r in ordered)
    print(f"total {total:.0f} s (budget {args.budget:.0f} s; {times})")
    for r in ordered:
        for note in r.notes:
            print(f"  {r.name}: {note}")
    latest = out_dir / "latest.json"
    payload: dict[str, Any] = {
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "total_seconds": round(total, 1),
        "budget_seconds": args.budget,
        "machine": facts,
        "results": [r.to_json() for r in ordered],
    }
    latest.write_text(json.dumps(payload, indent=2))
    print(f"results: {latest}")
    crashed = any(r.error for r in ordered)
    missed = any(c.ok is False for r in ordered for c in r.checks)
    return 1 if crashed or (args.strict and missed) else 0


if __name__ == "__main__":
    raise SystemExit(main())
