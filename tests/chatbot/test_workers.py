"""Simultaneous turns each get a worker thread (issue 19, item 4): asyncio's default pool has
min(32, cores + 4) threads, so on a small machine the 16th question's hops queued behind the
others' searches and composers. Behaviour, not speed: work that can only finish when every
caller is running at once (a barrier) completes with the app's pool."""

from __future__ import annotations

import asyncio
import threading

from chatbot.workers import WORKER_THREADS, ensure_worker_pool

SIMULTANEOUS = 40  # more than asyncio's default pool ever has (32), fewer than the app's


def test_the_app_pool_runs_every_simultaneous_turn_at_once() -> None:
    assert SIMULTANEOUS <= WORKER_THREADS
    barrier = threading.Barrier(SIMULTANEOUS, timeout=20)

    async def turns() -> list[int]:
        assert ensure_worker_pool() is not None
        assert ensure_worker_pool() is None  # once per loop
        return await asyncio.gather(*(asyncio.to_thread(barrier.wait) for _ in range(SIMULTANEOUS)))

    assert sorted(asyncio.run(turns())) == list(range(SIMULTANEOUS))  # nobody waited for a free thread


def test_without_it_the_default_pool_makes_the_last_turns_wait() -> None:
    """The reference: the same 40 callers on asyncio's default pool never meet."""
    barrier = threading.Barrier(SIMULTANEOUS, timeout=1)

    async def turns() -> list[object]:
        return await asyncio.gather(*(asyncio.to_thread(barrier.wait) for _ in range(SIMULTANEOUS)),
                                    return_exceptions=True)

    results = asyncio.run(turns())
    assert any(isinstance(r, threading.BrokenBarrierError) for r in results)


def test_each_new_loop_gets_its_own_pool() -> None:
    async def install() -> object:
        return ensure_worker_pool()

    assert asyncio.run(install()) is not None
    assert asyncio.run(install()) is not None  # a new loop (asyncio.run), a new pool
