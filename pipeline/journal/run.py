"""Running one journalled admin action: begin (intent + before-state), steps, commit, or abort.

async with admin_section(lab):                 # the admin lock; open entries of dead processes finished
    ...validate...
    async with journalled(lab, KIND, group_id, actor, before) as entry:   # begin(); abort() on any failure
        ...graph step...; await entry.step("save_episode")                 # after each step is done
        with lab.store.transaction() as conn:   # the feature record + audit entry + commit, together
            ...; entry.commit(conn)
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import uuid as uuidlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from pipeline.journal import failpoint, repo
from pipeline.journal.kinds import load_kinds
from pipeline.journal.lock import DEFAULT_TIMEOUT, admin_lock
from pipeline.journal.records import BEGUN, DONE, OPEN, ROLLED_BACK
from pipeline.journal.recovery import recover_open
from pipeline.store.db import Store

if TYPE_CHECKING:
    from pipeline.lab import Lab

log = logging.getLogger(__name__)


@contextlib.asynccontextmanager
async def admin_section(lab: Lab, timeout: float = DEFAULT_TIMEOUT) -> AsyncIterator[None]:
    """The admin lock, with every entry a killed process left open finished first."""
    async with admin_lock(lab.settings.resolved_data_dir, timeout):
        await recover_open(lab)
        yield


class Running:
    """A journal entry being worked on by this process (under the admin lock)."""

    def __init__(self, lab: Lab, entry_id: str, kind: str) -> None:
        self.lab, self.id, self.kind = lab, entry_id, kind
        self._store: Store = lab.store
        self._data_dir = lab.settings.resolved_data_dir

    async def step(self, name: str) -> None:
        """Record a step as done (the graph write before it has returned)."""
        repo.add_step(self._store, self.id, name)
        failpoint.reached(self.kind, name, self._data_dir)

    def commit(self, conn: sqlite3.Connection) -> None:
        """Mark the entry committed inside the caller's transaction (with the feature record and audit)."""
        repo.mark_committed(conn, self.id)

    def committed(self) -> None:
        failpoint.reached(self.kind, DONE, self._data_dir)

    def refused(self, reason: str) -> None:
        """The graph refused the change itself (its query found nothing to do): close the entry as rolled back
        without running the handler, which must not undo what another action did."""
        with self._store.transaction() as conn:
            repo.mark_finished(conn, self.id, ROLLED_BACK, {"refused": reason, "in_process": True})

    async def abort(self) -> None:
        """The action failed in this process: finish the entry now with its kind's handler (no audit: to the
        user nothing happened). If that fails too (the graph server is down), the entry stays open for
        recovery on the next start or before the next admin action."""
        entry = repo.get_entry(self._store, self.id)
        if entry is None or entry.status != OPEN:
            return
        try:
            done = await load_kinds()[self.kind].finish(self.lab, entry)
        except Exception as exc:  # left for recovery: the original error is what the user sees
            log.warning("journal entry %s (%s) left open for recovery: %s", self.id, self.kind, exc)
            return
        with self._store.transaction() as conn:
            repo.mark_finished(conn, self.id, done.status, {**done.outcome, "in_process": True})
            if done.write is not None:
                done.write(conn)
        if done.status != ROLLED_BACK:
            log.warning("journal entry %s (%s) was completed, not rolled back", self.id, self.kind)


async def begin(lab: Lab, kind: str, group_id: str, actor: str, before: dict[str, Any]) -> Running:
    """Journal the intent and before-state; nothing has touched the graph yet."""
    if kind not in load_kinds():
        raise KeyError(f"unregistered journal kind {kind!r}")
    entry_id = uuidlib.uuid4().hex
    repo.insert_entry(lab.store, entry_id, kind, group_id, actor, before)
    running = Running(lab, entry_id, kind)
    failpoint.reached(kind, BEGUN, running._data_dir)
    return running


@contextlib.asynccontextmanager
async def journalled(lab: Lab, kind: str, group_id: str, actor: str, before: dict[str, Any]) -> AsyncIterator[Running]:
    """begin(); on any failure before the commit, abort() and re-raise."""
    running = await begin(lab, kind, group_id, actor, before)
    try:
        yield running
    except BaseException:
        await running.abort()
        raise
    running.committed()
