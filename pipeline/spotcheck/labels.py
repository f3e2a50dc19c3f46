"""How the dashboard names a review queue in its picker."""

from __future__ import annotations

from pipeline.spotcheck.records import Queue
from pipeline.spotcheck.sampling import SOURCES


def queue_label(queue: Queue) -> str:
    return f"{queue.name} · {SOURCES.get(queue.source, queue.source).lower()} · {queue.item_count} items"
