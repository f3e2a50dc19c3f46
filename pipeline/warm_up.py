"""Warm-up: everything a first query pays once per process, paid before anyone asks.

A cold process loads the embedding model (ONNX session), opens the graph connections, compiles graphiti's
search statements on the server and reads the deal's facts and vectors into memory (`held_facts.py`). Holding the
facts of the deal the app opens, then one retrieval of the default shape (N, k, local reranker) on it, does all of
it; nothing is recorded in the run history.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.ingest.demo.seed import DEMO_GROUP
from pipeline.retrieval.retrieve import retrieve

if TYPE_CHECKING:
    from pipeline.lab import Lab

WARM_UP_QUERY = "What was revenue in the last fiscal year?"


@dataclass(frozen=True)
class WarmUp:
    group_id: str | None  # None: no deal to warm (the first page will say how to load one)
    seconds: float
    first_ms: float  # the warm-up retrieval's own end-to-end time (the cost a first user would have paid)
    second_ms: float  # the same retrieval again, warm: what every later query costs


async def warm_up(lab: Lab) -> WarmUp:
    started = time.perf_counter()
    deals = await lab.deals()
    if not deals:
        return WarmUp(None, time.perf_counter() - started, 0.0, 0.0)
    ids = [d.group_id for d in deals]
    group_id = DEMO_GROUP if DEMO_GROUP in ids else ids[0]
    n, k = lab.settings.default_candidates, lab.settings.default_top_k
    await lab.facts.load(group_id)
    first = await retrieve(lab, WARM_UP_QUERY, group_id, n, k, "local")
    second = await retrieve(lab, WARM_UP_QUERY + " ", group_id, n, k, "local")
    return WarmUp(
        group_id, time.perf_counter() - started, first.timings.stages_ms["total"], second.timings.stages_ms["total"]
    )
