"""Create the facts' vector index on a deal and wait until the database has built it.

Creating one is a schema change, journalled and audited like the other admin changes (`pipeline/journal`): the
intent is journalled before the index statement is sent, and the `vector_index.create` audit entry commits with
the journal entry once the index is ready. A process killed in between leaves an open entry that recovery
finishes at the next start: an index that exists (the database goes on building it by itself) is completed and
audited; one whose statement never reached the database is rolled back (there is nothing to undo).
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pipeline.audit import record_audit
from pipeline.errors import BackendUnavailable, InvalidInput
from pipeline.journal.kinds import Finished, register
from pipeline.journal.records import COMPLETED, ROLLED_BACK, JournalEntry
from pipeline.journal.run import journalled

if TYPE_CHECKING:
    from pipeline.lab import Lab

BUILD_TIMEOUT_S = 1800.0
POLL_S = 0.25
KIND = ACTION = "vector_index.create"
STEP_CREATE = "create_index"  # the index statement has returned: the database builds it from here
INDEX = "fact_embedding"


def _details(dimension: Any, **extra: Any) -> dict[str, Any]:
    return {"index": INDEX, "dimension": dimension, **extra}


async def _finish(lab: Lab, entry: JournalEntry) -> Finished:
    """Idempotent: the index is there (complete: audit it) or not (roll back: nothing was changed)."""
    index = await lab.backend.cypher.fact_vector_index(entry.group_id)
    if index is None:
        return Finished(ROLLED_BACK, {"index": None})
    details = _details(entry.before.get("dimension"), completed_after_interruption=True, ready=index.ready)

    def write(conn: sqlite3.Connection) -> None:
        record_audit(lab.store, entry.actor, ACTION, entry.group_id, entry.group_id, details, conn=conn)

    return Finished(COMPLETED, {"index": INDEX, "ready": index.ready}, write)


register(KIND, (STEP_CREATE,), _finish)


async def ensure_index(
    lab: Lab,
    group_id: str,
    progress: Callable[[str], None] | None = None,
    timeout_s: float = BUILD_TIMEOUT_S,
    actor: str = "system",
) -> bool:
    """Wait until the deal's index is ready, creating it first if need be (journalled, audited as `actor`);
    whether this call created it. Needs a writable deal to create one; run it under the admin lock
    (`admin_section`). The database keeps the index up to date as facts change."""
    await lab.deal(group_id)
    if await lab.backend.cypher.fact_vector_index(group_id) is not None:
        await _wait_ready(lab, group_id, progress, timeout_s)
        return False
    dimension = await lab.backend.cypher.stored_dimension(group_id)
    if dimension is None:
        raise InvalidInput(f"Deal {group_id!r} has no stored fact embeddings to index.")
    lab.backend.require_writable(group_id, "creating the vector index")
    async with journalled(lab, KIND, group_id, actor, {"dimension": dimension}) as entry:
        await lab.backend.cypher.create_fact_vector_index(group_id, dimension)
        await entry.step(STEP_CREATE)
        await _wait_ready(lab, group_id, progress, timeout_s)
        with lab.store.transaction() as conn:
            record_audit(lab.store, actor, ACTION, group_id, group_id, _details(dimension), conn=conn)
            entry.commit(conn)
    return True


async def _wait_ready(lab: Lab, group_id: str, progress: Callable[[str], None] | None, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    said = ""
    while True:
        index = await lab.backend.cypher.fact_vector_index(group_id)
        if index is None:
            raise BackendUnavailable(f"The vector index of deal {group_id!r} disappeared while it was being built.")
        if index.ready:
            return
        if progress is not None and index.progress != said:  # once per change, not once per poll
            progress(said := index.progress)
        if time.monotonic() > deadline:
            raise BackendUnavailable(f"The vector index of deal {group_id!r} is still building ({index.progress}).")
        await asyncio.sleep(POLL_S)


async def has_ready_index(lab: Lab, group_id: str) -> bool:
    index = await lab.backend.cypher.fact_vector_index(group_id)
    return index is not None and index.ready
