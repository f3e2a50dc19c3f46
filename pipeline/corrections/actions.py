"""Correct a fact (admin action) and undo the correction, all or nothing, audited.

A correction writes, through graphiti's own models: a new episode (the Q&A answer or analyst note
that carries the corrected statement, with our citation properties), its MENTIONS edges to the
fact's two entities, and a new `EntityEdge` (same endpoints and relation, embedded with the lab's
embedder, `valid_at` = the given date, `supersedes` = the old uuid). The old fact then gets
`invalid_at` = the new `valid_at`, `expired_at` = now and `superseded_by` = the new uuid: the way
graphiti itself supersedes a fact, plus the link it does not record.

Both run under the data directory's admin lock (one admin action at a time across processes) and are
validated inside it, so a second process correcting the same fact, or undoing the same correction, is
refused cleanly. FalkorDB has no multi-statement transactions, so each action is journalled
(`pipeline/journal/`) before its first graph write: intent and before-state (the new uuids, the old
fact's prior properties; for an undo, a snapshot of what it deletes), then each graph step as it
completes. The SQLite record, its audit entry and the journal's commit land in one transaction. A failure
puts the graph back at once; a kill -9 (of this process or of the graph server) leaves the entry open,
and recovery rolls it back on the next start or before the next admin action.
"""

from __future__ import annotations

import uuid as uuidlib
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pipeline.corrections import graph, repo
from pipeline.corrections.records import (
    ACTION_CORRECT,
    ACTION_UNDO,
    CORRECTION_CHANNELS,
    RESTORED_KEYS,
    Correction,
    CorrectionRefused,
    CorrectionRequest,
)
from pipeline.corrections.repo import get_correction, list_corrections
from pipeline.corrections.validation import validate
from pipeline.ingest.loading import EpisodeSpec
from pipeline.journal.kinds import Finished, register
from pipeline.journal.records import ROLLED_BACK, JournalEntry
from pipeline.journal.run import admin_section, journalled
from pipeline.store.db import utc_now
from pipeline.text import one_line

if TYPE_CHECKING:
    from pipeline.lab import Lab

# the feature's public face (the dashboard and the tests import these from here)
__all__ = [
    "ACTION_CORRECT",
    "ACTION_UNDO",
    "CORRECTION_CHANNELS",
    "Correction",
    "CorrectionRefused",
    "CorrectionRequest",
    "correct_fact",
    "get_correction",
    "list_corrections",
    "undo_correction",
    "validate",
]

KIND_CORRECT, KIND_UNDO = ACTION_CORRECT, ACTION_UNDO  # journal kinds


async def correct_fact(lab: Lab, group_id: str, request: CorrectionRequest, actor: str) -> Correction:
    """Supersede a current fact with a corrected one; all of it or nothing, audited as `fact.correct`."""
    lab.backend.require_writable(group_id, "the correction")
    if not one_line(actor):
        raise CorrectionRefused("Corrections are audited: an admin name is required.")
    async with admin_section(lab):
        old, valid_at = await validate(lab, group_id, request)  # inside the lock: another process may have won
        statement = one_line(request.statement)
        correction_id = uuidlib.uuid4().hex
        now = datetime.now(UTC)
        label = CORRECTION_CHANNELS[request.channel]
        spec = EpisodeSpec(
            key=f"correction-{correction_id}",
            name=f"{label} (correction) {valid_at.date()}",
            content=(request.source_text or "").strip() or statement,
            channel=request.channel,
            valid_at=valid_at,
            doc_id=f"correction-{correction_id}",
            doc_name=f"{label} (correction) {valid_at.date()}",
            author=one_line(request.author),
        )
        vector = (await lab.embedder.embed_documents([statement]))[0]
        plan = graph.plan_correction(old, spec, group_id, statement, vector, now)
        record = Correction(
            id=correction_id,
            group_id=group_id,
            old_uuid=old["uuid"],
            new_uuid=plan.edge.uuid,
            episode_uuid=plan.episode.uuid,
            mention_uuids=tuple(m.uuid for m in plan.mentions),
            old_fact=old["fact"],
            new_fact=statement,
            channel=request.channel,
            author=spec.author,
            valid_at=valid_at.isoformat(),
            prior_props=plan.prior_props,
            actor=one_line(actor),
            created_at=utc_now(),
            audit_id=0,
        )
        before = {
            "correction_id": correction_id,
            "old_uuid": plan.old_uuid,
            "new_uuid": plan.edge.uuid,
            "episode_uuid": plan.episode.uuid,
            "prior_props": plan.prior_props,
        }
        async with journalled(lab, KIND_CORRECT, group_id, record.actor, before) as entry:
            for step in graph.GRAPH_STEPS:
                await step(lab, plan)
                await entry.step(step.__name__)
            return repo.write_correction(lab.store, record, entry.commit)


async def _roll_back_correction(lab: Lab, entry: JournalEntry) -> Finished:
    b = entry.before
    await graph.revert_graph(lab, entry.group_id, b["new_uuid"], b["episode_uuid"], b["old_uuid"], b["prior_props"])
    deleted = [b["new_uuid"], b["episode_uuid"]]
    return Finished(ROLLED_BACK, {"undone": "fact.correct", "deleted": deleted, "restored": b["old_uuid"]})


register(KIND_CORRECT, tuple(step.__name__ for step in graph.GRAPH_STEPS), _roll_back_correction)


async def _check_undo(lab: Lab, group_id: str, correction_id: str) -> tuple[Correction, dict]:
    """The correction, if it can be undone now (re-checked under the lock); the old fact's applied values."""
    store = lab.store
    record = get_correction(store, str(correction_id or ""))
    if record is None or record.group_id != group_id:
        raise CorrectionRefused(f"No correction {correction_id!r} in deal {group_id!r}.")
    if record.undone:
        raise CorrectionRefused(f"That correction was already undone by {record.undone_by} at {record.undone_at}.")
    await lab.deal(group_id)
    later = [c for c in list_corrections(store, group_id) if c.old_uuid == record.new_uuid and not c.undone]
    new = await graph.stored_fact(lab, group_id, record.new_uuid)
    if later or (new is not None and (new.get("invalid_at") or new.get("expired_at"))):
        raise CorrectionRefused(
            "The corrected fact was itself corrected or superseded later: undo that later change first."
        )
    old = await graph.stored_fact(lab, group_id, record.old_uuid)
    if new is None or old is None:
        raise CorrectionRefused("The facts of that correction are no longer in the graph; nothing was changed.")
    if old.get("superseded_by") != record.new_uuid:
        raise CorrectionRefused("The old fact was changed since the correction; nothing was changed.")
    return record, {key: old.get(key) for key in RESTORED_KEYS}


async def undo_correction(lab: Lab, group_id: str, correction_id: str, actor: str) -> Correction:
    """Put the graph back exactly as it was before the correction; audited as `fact.undo_correct`."""
    lab.backend.require_writable(group_id, "the undo")
    if not one_line(actor):
        raise CorrectionRefused("Undo is audited: an admin name is required.")
    async with admin_section(lab):
        record, applied = await _check_undo(lab, group_id, correction_id)
        snap = await graph.snapshot(lab, record)
        before = {"correction_id": record.id, "applied": applied, "snapshot": graph.snapshot_to_json(snap)}
        async with journalled(lab, KIND_UNDO, group_id, one_line(actor), before) as entry:
            await graph.delete_new_fact(lab, group_id, record.new_uuid)
            await entry.step("delete_new_fact")
            await graph.delete_episode(lab, group_id, record.episode_uuid)
            await entry.step("delete_episode")
            await graph.restore_old_fact(lab, group_id, record.old_uuid, record.prior_props)
            await entry.step("restore_old_fact")
            return repo.write_undo(lab.store, record, one_line(actor), entry.commit)


async def _roll_back_undo(lab: Lab, entry: JournalEntry) -> Finished:
    record = get_correction(lab.store, entry.before["correction_id"])
    if record is None:
        return Finished(ROLLED_BACK, {"undone": "fact.undo_correct", "note": "correction record not found"})
    snap = graph.snapshot_from_json(entry.before["snapshot"])
    await graph.restore_snapshot(lab, record, snap, entry.before["applied"])
    outcome = {"undone": "fact.undo_correct", "correction_id": record.id, "re_created": record.new_uuid}
    return Finished(ROLLED_BACK, outcome)


register(KIND_UNDO, graph.UNDO_STEPS, _roll_back_undo)
