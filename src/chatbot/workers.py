"""The worker threads behind `asyncio.to_thread` in the app: sized for simultaneous conversations.

Each help-center turn hops to a worker thread several times (input guard, knowledge base, search,
intent classifier, composer). asyncio's default pool has min(32, cores + 4) threads — 6 on a
2-core machine — so with 16 questions at once the quick hops queued behind the slow ones and
at most 6 searches reached the encoder's micro-batcher together (measured through the real app,
`benchmarks/bench_app_answers.py`: about 2 s per turn spent waiting for a free worker). A turn
holds at most one worker at a time, so a pool as large as the conversations served at once
removes that queue; CPU-heavy work is still bounded by the encoders (one batched forward pass
for simultaneous questions) and torch's own threads. Threads are created only when needed.
"""

from __future__ import annotations

import asyncio
import weakref
from concurrent.futures import ThreadPoolExecutor

WORKER_THREADS = 64  # >= the simultaneous turns one instance serves (the load test runs 50 conversations)
THREAD_PREFIX = "relais-worker"

_installed: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()  # loops that got the pool


def ensure_worker_pool(loop: asyncio.AbstractEventLoop | None = None) -> ThreadPoolExecutor | None:
    """Give the running loop the app's worker pool once (idempotent; returns it when installed now)."""
    loop = loop or asyncio.get_running_loop()
    if loop in _installed:
        return None
    pool = ThreadPoolExecutor(max_workers=WORKER_THREADS, thread_name_prefix=THREAD_PREFIX)
    loop.set_default_executor(pool)
    _installed.add(loop)
    return pool
