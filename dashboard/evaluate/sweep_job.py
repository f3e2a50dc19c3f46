"""A sweep running in the background on the app's one event loop (`dashboard/common/runtime.py`).

The page script starts it, then polls its progress on each rerun. Cancel sets a `threading.Event` that
`run_sweep` checks between queries.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from dashboard.common.runtime import run
from pipeline.evaluation.records import SweepResult, SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab


@dataclass
class SweepJob:
    spec: SweepSpec
    future: concurrent.futures.Future[SweepResult]
    cancel: threading.Event = field(default_factory=threading.Event)
    done: int = 0
    total: int = 0
    message: str = ""

    def progress(self, done: int, total: int, message: str) -> None:  # called on the event loop's thread
        self.done, self.total, self.message = done, total, message


async def _submit(coro: Coroutine[Any, Any, SweepResult]) -> concurrent.futures.Future[SweepResult]:
    """Schedule `coro` on the running (app) loop without waiting for it."""
    return asyncio.run_coroutine_threadsafe(coro, asyncio.get_running_loop())


def start_sweep(lab: Lab, spec: SweepSpec) -> SweepJob:
    spec = spec.validate()
    holder: dict[str, SweepJob] = {}
    cancel = threading.Event()

    def progress(done: int, total: int, message: str) -> None:
        if "job" in holder:
            holder["job"].progress(done, total, message)

    future = run(_submit(run_sweep(lab, spec, progress=progress, cancel=cancel)))
    job = SweepJob(spec, future, cancel)
    holder["job"] = job
    return job
