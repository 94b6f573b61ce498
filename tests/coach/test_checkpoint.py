"""One persistence suite over every checkpointer backend: memory and SQLite always, Postgres in
the scale run (`scripts/scale-tests.sh` starts it and sets RELAIS_SCALE_DATABASE_URL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coach.checkpoint import describe_target, open_checkpointer
from coach.graph import build_coach_graph
from coach.runner import CoachRunner
from tests.coach.conftest import SEED_TURNS, collect
from tests.conftest import scale_services

BACKENDS = ["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.scale)]


def target_for(backend: str, tmp_path: Path) -> str:
    if backend == "memory":
        return ":memory:"
    if backend == "sqlite":
        return str(tmp_path / "deep" / "folder" / "checkpoints.db")
    url, _, _ = scale_services()  # fails (never skips) outside scripts/scale-tests.sh
    return url


@pytest.mark.parametrize("backend", BACKENDS)
async def test_thread_state_survives_reopening(backend: str, tmp_path: Path) -> None:
    target = target_for(backend, tmp_path)
    async with open_checkpointer(target) as saver:
        runner = CoachRunner(build_coach_graph(None, saver))
        await collect(runner, f"{backend}-t", SEED_TURNS[0])
        if backend == "memory":  # in-process only: still paused in the same saver
            assert (await runner.state(f"{backend}-t"))["paused"]
            return
    async with open_checkpointer(target) as saver:  # a fresh connection, as after a restart
        runner = CoachRunner(build_coach_graph(None, saver))
        state = await runner.state(f"{backend}-t")
        assert (
            state["paused"]
            and state["last_active_agent"] == "workout_advisor"
            and state["messages"] == 4
        )
        events = await collect(runner, f"{backend}-t", SEED_TURNS[1])
        assert "kcal" in "".join(getattr(e, "text", "") for e in events)
        assert (await runner.state(f"{backend}-t"))["last_active_agent"] == "nutrition_advisor"


async def test_default_target_is_sqlite_under_the_data_dir(isolated_settings: Path) -> None:
    async with open_checkpointer() as saver:
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        assert isinstance(saver, AsyncSqliteSaver)
    assert (isolated_settings / "checkpoints.db").exists()


def test_describe_target_hides_credentials() -> None:
    assert (
        describe_target("postgresql://user:pw@db.example:5432/relais")
        == "postgres://db.example:5432/relais"
    )
    assert describe_target(":memory:") == "memory"
    assert describe_target("/tmp/x.db") == "sqlite:/tmp/x.db"


async def test_a_sqlite_saver_set_up_reads_without_queueing_on_its_lock(tmp_path: Path) -> None:
    """LangGraph's saver takes its one lock in `setup()` before every read and write; once set up
    ours does not, so a read waits for the lock once, not twice (the load bench's coach turns
    spent 19 % of their time queued in `setup`)."""
    import asyncio

    async with open_checkpointer(str(tmp_path / "checkpoints.db")) as saver:
        async with saver.lock:  # another thread's checkpoint write holds it
            await asyncio.wait_for(saver.setup(), timeout=1)
