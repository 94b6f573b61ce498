"""Turns in flight in this process, so that background work leaves them the CPU.

Why: once ready, the app fills the composer's vector cache in the background
(`knowledge.unit_cache.prefill_once`, ~900 texts, ~30-45 s of CPU on the demo KB). Three
instances started together behind nginx (`python -m benchmarks.bench_load --nginx`) ran theirs
beside the first fifty conversations on the same two cores. That cache only saves work: a
question encodes what it needs anyway. So the prefill waits, block by block, until no turn has
run for a moment (`wait_quiet`).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

QUIET_S = 2.0  # no turn for this long: the next one is not right behind (a conversation's pause)


class TurnActivity:
    """A count of turns in flight and when the last one ended (thread-safe)."""

    def __init__(self, quiet_s: float = QUIET_S) -> None:
        self.quiet_s = quiet_s
        self._changed = threading.Condition()
        self._running = 0
        self._last_end = float("-inf")

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Around one turn (a message, a click, an `ask`)."""
        with self._changed:
            self._running += 1
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
                self._last_end = time.monotonic()
                self._changed.notify_all()

    @property
    def running(self) -> int:
        return self._running

    def wait_quiet(self) -> float:
        """Block until no turn has run for `quiet_s` seconds; the seconds waited."""
        started = time.monotonic()
        with self._changed:
            while True:
                if self._running:
                    self._changed.wait()
                    continue
                idle = time.monotonic() - self._last_end
                if idle >= self.quiet_s:
                    return time.monotonic() - started
                self._changed.wait(self.quiet_s - idle)


ACTIVITY = TurnActivity()  # this process's turns (handlers and the `ask` route mark theirs)
