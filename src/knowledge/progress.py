"""What a long ingest is doing while it does it: one progress bar per phase, and its duration.

A first index of a help center runs for minutes (loading the encoders, chunking, each encoder
over every chunk, the composer's sentences, the BM25 build); with one bar for the chunks only,
the terminal sat silent for ~2 min after "Embedding chunks 100%". `Phases` gives every phase a
tqdm bar on stderr (counts, rate, ETA) and records how long each took, which `IngestReport`
carries and the benchmarks print. Disabled, it draws nothing and still records the durations.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tqdm import tqdm


class _Silent:
    """The bar of a disabled phase: counts nothing, draws nothing."""

    total: int | None = None
    n = 0

    def update(self, n: int = 1) -> None:
        return None

    def refresh(self) -> None:
        return None

    def set_postfix_str(self, text: str) -> None:
        return None


class Phases:
    """Progress bars for the phases of one run, and the seconds each took (`seconds`)."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.seconds: dict[str, float] = {}

    @contextmanager
    def phase(self, description: str, total: int | None = None, unit: str = "text") -> Iterator[Any]:
        """A bar for `description` (`total` steps of `unit`); yields it for `update(n)` calls."""
        bar: Any = _Silent()
        if self.enabled:
            bar = tqdm(total=total, desc=description, unit=unit, leave=True, dynamic_ncols=True)
        started = time.perf_counter()
        try:
            yield bar
        finally:
            self.seconds[description] = self.seconds.get(description, 0.0) + time.perf_counter() - started
            if self.enabled:
                bar.close()

    def summary(self) -> str:
        """'loading models 3.1 s, chunking 0.2 s, ...' in the order the phases ran."""
        return ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.seconds.items())
