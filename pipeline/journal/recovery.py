"""Finish what killed processes left open: roll each open entry back (or complete it where its kind cannot be
rolled back), mark it finished and audit it as `journal.rollback` / `journal.complete`.

Runs under the admin lock (every action holds it for its whole run), so an open entry seen here belongs to no
living process. If the graph server does not answer, it raises and leaves the entries open: the action that
asked is refused with one line, and the next attempt tries again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pipeline.audit import record_audit
from pipeline.errors import BackendUnavailable, RetrievalLabError
from pipeline.journal import repo
from pipeline.journal.kinds import load_kinds
from pipeline.journal.lock import admin_lock, try_admin_lock
from pipeline.journal.records import ROLLED_BACK, JournalEntry

if TYPE_CHECKING:
    from pipeline.lab import Lab

SYSTEM_ACTOR = "system (journal recovery)"


async def _finish(lab: Lab, entry: JournalEntry) -> dict[str, Any]:
    kind = load_kinds().get(entry.kind)
    if kind is None:
        raise RetrievalLabError(f"journal entry {entry.id} has unknown kind {entry.kind!r}; fix the code first")
    try:
        done = await kind.finish(lab, entry)
    except RetrievalLabError:
        raise
    except Exception as exc:
        raise BackendUnavailable(
            f"An interrupted {entry.kind} on deal {entry.group_id!r} could not be finished ({exc}); admin "
            "actions stay refused until the graph answers again."
        ) from None
    action = "journal.rollback" if done.status == ROLLED_BACK else "journal.complete"
    details = {
        "journal_id": entry.id,
        "kind": entry.kind,
        "requested_by": entry.actor,
        "steps_done": list(entry.steps),
        **done.outcome,
    }
    with lab.store.transaction() as conn:
        repo.mark_finished(conn, entry.id, done.status, done.outcome)
        record_audit(lab.store, SYSTEM_ACTOR, action, entry.group_id, entry.id, details, conn=conn)
        if done.write is not None:
            done.write(conn)
    return {"id": entry.id, "kind": entry.kind, "status": done.status}


async def recover_open(lab: Lab) -> list[dict[str, Any]]:
    """Finish every open entry; call only while holding the admin lock."""
    return [await _finish(lab, entry) for entry in repo.open_entries(lab.store)]


async def recover(lab: Lab, timeout: float | None = None) -> list[dict[str, Any]]:
    """Take the admin lock (waiting up to `timeout`; None: only if free now) and finish every open entry."""
    if timeout is None:
        with try_admin_lock(lab.settings.resolved_data_dir) as taken:
            return await recover_open(lab) if taken else []
    async with admin_lock(lab.settings.resolved_data_dir, timeout):
        return await recover_open(lab)
