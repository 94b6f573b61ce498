"""Shared fixtures: isolated settings and data dir per test, free ports, no network."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
# The ingest-time prefill of the composer's sentence vectors (a cache) is off for the many small
# ingests of the suite; it has its own tests, and the shared demo-KB ingest of the load and
# resilience tests turns it on (tests/demo_index.py), as a warm app leaves the cache (test apps start cold).
os.environ.setdefault("RELAIS_PREFILL_BUDGET_S", "0")

REPO_ROOT = Path(__file__).resolve().parents[1]

# Keys that could switch the suite to a real model or a shared server.
_ISOLATED_ENV = (
    "MISTRAL_API_KEY", "RELAIS_MODEL", "DATABASE_URL", "CHECKPOINT_URL", "CHROMA_HOST",
    "EXTERNAL_AGENT_URL", "EXTERNAL_AGENT_TOKEN", "CHAINLIT_AUTH_SECRET", "ENABLE_ORCHESTRATOR",
)


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own RELAIS_DATA_DIR and no .env from the developer's checkout."""
    from relais.settings import clear_settings_caches

    for key in _ISOLATED_ENV:
        monkeypatch.delenv(key, raising=False)
    data_dir = tmp_path / "relais-data"
    monkeypatch.setenv("RELAIS_DATA_DIR", str(data_dir))
    monkeypatch.setenv("RELAIS_KB_DIR", str(REPO_ROOT / "data" / "knowledge"))
    monkeypatch.setenv("RELAIS_INTENTS_FILE", str(REPO_ROOT / "data" / "intents" / "examples.yaml"))
    monkeypatch.chdir(tmp_path)  # no stray .env is read
    clear_settings_caches()
    yield data_dir
    clear_settings_caches()


from relais.serving import free_port


@pytest.fixture
def port() -> int:
    return free_port()


def scale_services() -> tuple[str, str, int]:
    """Postgres URL and Chroma server started by scripts/scale-tests.sh; fail (not skip) without them."""
    url = os.environ.get("RELAIS_SCALE_DATABASE_URL")
    chroma = os.environ.get("RELAIS_SCALE_CHROMA")
    if not url or not chroma:
        pytest.fail("scale tests need PostgreSQL and a Chroma server: run scripts/scale-tests.sh")
    host, port = chroma.rsplit(":", 1)
    return url, host, int(port)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.scale)])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """One persistence suite, several backends: SQLite always, Postgres in the scale run."""
    from relais.settings import clear_settings_caches

    if request.param == "postgres":
        url, _, _ = scale_services()
        monkeypatch.setenv("DATABASE_URL", url)
        clear_settings_caches()
    return str(request.param)


@pytest.fixture(scope="session")
def langgraph_server(tmp_path_factory: pytest.TempPathFactory):
    """A real `langgraph dev` on 127.0.0.1 serving langgraph.json (booking + coach), one per session."""
    from tests.langgraph_server import running_server

    yield from running_server(tmp_path_factory.mktemp("langgraph-server"))


# Fixtures shared by many modules, started once per process: under pytest-xdist (`make test` runs
# the unit suite on two workers) every test that uses one of them goes to the same worker, so each
# is still started once per run. NOT in effect today: pytest 9.2's structured node ids drop the
# group that pytest-xdist 3.8 appends to them (pytest-xdist #1386, fix open), so loadgroup spreads
# tests one by one; the marks take effect again once pytest-xdist carries the fix.
_SHARED_PROCESS_FIXTURES = ("demo_app", "langgraph_server")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under `--dist loadgroup`: a module's tests stay on one worker (its module fixtures start
    once), and the tests of a shared session fixture gather on one worker with it."""
    for item in items:
        shared = next((name for name in _SHARED_PROCESS_FIXTURES if name in getattr(item, "fixturenames", ())), None)
        module = item.module.__name__ if getattr(item, "module", None) else item.nodeid
        item.add_marker(pytest.mark.xdist_group(shared or module))


def pytest_collection_finish(session: pytest.Session) -> None:
    """When a collected module uses the demo KB's cached index (`tests.demo_index`), build it before
    the first test: once, and outside any one test's timeout (minutes of encoding on a busy machine)."""
    if session.items and "tests.demo_index" in sys.modules and not session.config.option.collectonly:
        # imported here, not at the top: tests.demo_index imports this module
        from tests.demo_index import cache_root_for, ingested_template

        ingested_template(cache_root_for(session.config._tmp_path_factory))  # pytest's own temp root
