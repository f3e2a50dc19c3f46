"""Wall time in milliseconds: per named stage of one run (`StageTimer`), and summed per phase over many
(`Phases`: where a sweep's time goes)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

# a sweep's phases, in the order they are shown
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


class StageTimer:
    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = (time.perf_counter() - start) * 1000

    async def timed(self, name: str, awaitable: Awaitable[T]) -> T:
        """Time one awaitable; several can run concurrently, each keeps its own wall time."""
        with self.stage(name):
            return await awaitable


class Phases:
    """Milliseconds summed per phase over every query of a sweep (queries overlap when several run at once, so
    the sum of the phases can exceed the wall time)."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = dict.fromkeys(PHASES, 0.0)

    @contextmanager
    def time(self, phase: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.ms[phase] = self.ms.get(phase, 0.0) + (time.perf_counter() - start) * 1000

    def rounded(self) -> dict[str, float]:
        return {name: round(ms, 1) for name, ms in self.ms.items()}
