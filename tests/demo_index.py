"""The demo knowledge base's index, ingested once and copied wherever a test needs it.

Why: encoding the demo KB costs about a minute on 2 shared cores (minutes under load), and most
tests that talk to the real app or orchestrator only need it indexed, not indexed again. The real
CLI ingests it once per KB content and knowledge code (as shipped: the composer's vectors
prefilled) into a folder that outlives one pytest run, so the unit, browser and scale runs of one
`make test` share it; each test gets its own copy (its own SQLite files and caches)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from filelock import FileLock

from tests.chainlit_driver import relais_env
from tests.conftest import REPO_ROOT

KB_DIR = REPO_ROOT / "data" / "knowledge"
KNOWLEDGE_CODE = REPO_ROOT / "src" / "knowledge"


def _kb_fingerprint() -> str:
    """The KB's files and the knowledge package's code: a cached index from older code is not reused."""
    digest = hashlib.sha256()
    for root in (KB_DIR, KNOWLEDGE_CODE):
        for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".pyc"):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def ingested_template(cache_root: Path) -> Path:
    """A data dir holding the demo KB's index, ingested by the real CLI once per KB content."""
    fingerprint = _kb_fingerprint()
    target = cache_root / f"relais-ingested-kb-{fingerprint}"
    if (target / ".complete").exists():  # built: no lock to wait for (it is only renamed into place when whole)
        return target
    # one builder per KB content and code at a time: pytest-xdist's workers (and concurrent runs of
    # the same code) wait for the first one; a run of other code builds its own index meanwhile
    with FileLock(str(cache_root / f".relais-ingested-kb-{fingerprint}.lock")):
        if not (target / ".complete").exists():
            _ingest_into(target, cache_root)
    return target


def _ingest_into(target: Path, cache_root: Path) -> None:
    """Ingest the demo KB with the real CLI into a staging folder, then move it to `target`."""
    staging = cache_root / f".staging-{uuid.uuid4().hex[:8]}"
    done = subprocess.run(
        [sys.executable, "-m", "cli.app", "ingest"],
        env=relais_env(staging, RELAIS_PREFILL_BUDGET_S="120"),  # as a warm app leaves it: the composer's vectors prefilled
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=900, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"ingest failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    (staging / ".complete").write_text("ok")
    try:
        staging.rename(target)
    except OSError:  # another run finished first: use its copy
        shutil.rmtree(staging, ignore_errors=True)


def ingested_data_dir(dest: Path, cache_root: Path) -> Path:
    """`dest` as a fresh data dir with the demo KB already indexed."""
    shutil.copytree(ingested_template(cache_root), dest, ignore=shutil.ignore_patterns(".complete"))
    return dest


def cache_root_for(tmp_path_factory: Any) -> Path:
    """Outlives one pytest run: pytest's root of base temp folders (`pytest-of-USER`), also from a
    pytest-xdist worker, whose base temp (`pytest-N/popen-gwK`) sits one level deeper."""
    base = Path(tmp_path_factory.getbasetemp())
    return base.parent.parent if os.environ.get("PYTEST_XDIST_WORKER") else base.parent


def demo_data_dir(tmp_path_factory: Any, name: str) -> Path:
    """A fresh copy of the indexed demo KB in a temp folder of its own (`name` says whose)."""
    return ingested_data_dir(tmp_path_factory.mktemp(name) / "data", cache_root_for(tmp_path_factory))
