"""Create the facts' vector index on a deal and wait until the database has built it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from pipeline.errors import BackendUnavailable, InvalidInput
from pipeline.lab import Lab

BUILD_TIMEOUT_S = 1800.0
POLL_S = 0.25


async def ensure_index(
    lab: Lab, group_id: str, progress: Callable[[str], None] | None = None, timeout_s: float = BUILD_TIMEOUT_S
) -> bool:
    """Wait until the deal's index is ready, creating it first if need be; whether this call created it.
    Creating one is a schema change only (no fact is touched) and needs a writable deal; the database keeps
    the index up to date as facts change."""
    await lab.deal(group_id)
    created = False
    index = await lab.backend.cypher.fact_vector_index(group_id)
    if index is None:
        dimension = await lab.backend.cypher.stored_dimension(group_id)
        if dimension is None:
            raise InvalidInput(f"Deal {group_id!r} has no stored fact embeddings to index.")
        lab.backend.require_writable(group_id, "creating the vector index")
        await lab.backend.cypher.create_fact_vector_index(group_id, dimension)
        created = True
    deadline = time.monotonic() + timeout_s
    said = ""
    while True:
        index = await lab.backend.cypher.fact_vector_index(group_id)
        if index is None:
            raise BackendUnavailable(f"The vector index of deal {group_id!r} disappeared while it was being built.")
        if index.ready:
            return created
        if progress is not None and index.progress != said:  # once per change, not once per poll
            progress(said := index.progress)
        if time.monotonic() > deadline:
            raise BackendUnavailable(f"The vector index of deal {group_id!r} is still building ({index.progress}).")
        await asyncio.sleep(POLL_S)


async def has_ready_index(lab: Lab, group_id: str) -> bool:
    index = await lab.backend.cypher.fact_vector_index(group_id)
    return index is not None and index.ready
