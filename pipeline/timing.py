"""One small stage timer: wall time per named stage, in milliseconds."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


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
