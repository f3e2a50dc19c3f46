"""Where a sweep's time goes: milliseconds summed per phase over every query (queries overlap when the sweep
runs several at once, so the sum of the phases can exceed the sweep's wall time)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

# the phases, in the order they are shown
PHASES = (
    "embed",
    "first_stage",
    "vectors",
    "rerank",
    "graph_state",
    "cache_read",
    "cache_write",
    "metrics",
    "fact_texts",
    "stale",  # the superseded facts looked up for the stale-fact rate (only when measured)
)


class Phases:
    def __init__(self) -> None:
        self.ms: dict[str, float] = dict.fromkeys(PHASES, 0.0)

    @contextmanager
    def time(self, phase: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.ms[phase] += (time.perf_counter() - start) * 1000

    def rounded(self) -> dict[str, float]:
        return {name: round(ms, 1) for name, ms in self.ms.items()}
