"""How the dashboard names a review queue in its picker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.spotcheck.records import Queue
from pipeline.spotcheck.sampling import SOURCES

if TYPE_CHECKING:  # pools are queues with a pool row: pipeline/pools builds on this package
    from pipeline.pools.records import Pool


def queue_label(queue: Queue, pool: Pool | None = None) -> str:
    source = pool.label if pool else SOURCES.get(queue.source, queue.source).lower()
    return f"{queue.name} · {source} · {queue.item_count} items"
