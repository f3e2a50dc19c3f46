"""`python -m benchmarks load`: concurrent sessions querying one backend, loopback only, bounded in time.

Each session runs its queries one after another (as an analyst would); sessions run at once on one
event loop and one embedded server. Reports errors and latency percentiles.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import numpy as np

from pipeline.api import Lab
from pipeline.errors import InvalidInput


@dataclass(frozen=True)
class LoadReport:
    sessions: int
    queries: int
    errors: int
    error_samples: tuple[str, ...]
    wall_s: float
    p50_ms: float
    p95_ms: float
    max_ms: float
    throughput_qps: float


async def load_test(
    lab: Lab,
    group_id: str,
    sessions: int = 20,
    queries_per_session: int = 10,
    reranker: str = "local",
    candidates: int = 50,
    top_k: int = 10,
    time_limit_s: float = 120.0,
) -> LoadReport:
    if not 1 <= sessions <= 200 or not 1 <= queries_per_session <= 1000:
        raise InvalidInput("Use 1-200 sessions and 1-1000 queries per session.")
    await lab.deal(group_id)
    query_set = lab.query_sets.load(group_id)
    texts = [q.text for q in query_set.queries] if query_set else ["revenue"]
    latencies: list[float] = []
    errors: list[str] = []
    deadline = time.monotonic() + time_limit_s

    async def session(number: int) -> None:
        for i in range(queries_per_session):
            if time.monotonic() > deadline:
                return
            text = texts[(number * queries_per_session + i) % len(texts)]
            started = time.perf_counter()
            try:
                await lab.retrieval.retrieve(text, group_id, candidates, top_k, reranker)
            except Exception as exc:  # counted and reported, never hidden
                errors.append(f"{type(exc).__name__}: {exc}")
                continue
            latencies.append((time.perf_counter() - started) * 1000)

    started = time.perf_counter()
    await asyncio.gather(*(session(n) for n in range(sessions)))
    wall = time.perf_counter() - started
    values = np.array(latencies or [0.0])
    return LoadReport(
        sessions=sessions,
        queries=len(latencies) + len(errors),
        errors=len(errors),
        error_samples=tuple(errors[:3]),
        wall_s=wall,
        p50_ms=float(np.percentile(values, 50)),
        p95_ms=float(np.percentile(values, 95)),
        max_ms=float(values.max()),
        throughput_qps=len(latencies) / wall if wall else 0.0,
    )
