"""Correct a fact (admin action) and undo the correction, all or nothing, audited.

A correction writes, through graphiti's own models: a new episode (the Q&A answer or analyst note
that carries the corrected statement, with our citation properties), its MENTIONS edges to the
fact's two entities, and a new `EntityEdge` (same endpoints and relation, embedded with the lab's
embedder, `valid_at` = the given date, `supersedes` = the old uuid). The old fact then gets
`invalid_at` = the new `valid_at`, `expired_at` = now and `superseded_by` = the new uuid: the way
graphiti itself supersedes a fact, plus the link it does not record.

Everything is validated before the first write. FalkorDB has no multi-statement transactions, so
the graph steps are undone in reverse when one fails, and the SQLite record (with the old fact's
prior property values, what undo needs) lands in one transaction with its audit entry, after the
graph is written; if that transaction fails, the graph is put back. Undo is the same in reverse.
"""

from __future__ import annotations

import asyncio
import uuid as uuidlib
from datetime import UTC, datetime

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
from pipeline.lab import Lab
from pipeline.store.db import utc_now
from pipeline.text import one_line

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

_locks: dict[str, asyncio.Lock] = {}


def _lock(group_id: str) -> asyncio.Lock:
    return _locks.setdefault(group_id, asyncio.Lock())


async def correct_fact(lab: Lab, group_id: str, request: CorrectionRequest, actor: str) -> Correction:
    """Supersede a current fact with a corrected one; all of it or nothing, audited as `fact.correct`."""
    lab.backend.require_writable(group_id, "the correction")
    if not one_line(actor):
        raise CorrectionRefused("Corrections are audited: an admin name is required.")
    async with _lock(group_id):
        old, valid_at = await validate(lab, group_id, request)
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
        revert = (plan.edge.uuid, plan.episode.uuid, plan.old_uuid, plan.prior_props)
        try:
            await graph.apply_graph(lab, plan)
        except BaseException:
            await graph.revert_graph(lab, group_id, *revert)
            raise
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
        try:
            return repo.write_correction(lab.store, record)
        except BaseException:
            await graph.revert_graph(lab, group_id, *revert)
            raise


async def undo_correction(lab: Lab, group_id: str, correction_id: str, actor: str) -> Correction:
    """Put the graph back exactly as it was before the correction; audited as `fact.undo_correct`."""
    lab.backend.require_writable(group_id, "the undo")
    if not one_line(actor):
        raise CorrectionRefused("Undo is audited: an admin name is required.")
    async with _lock(group_id):
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
        applied = {key: old.get(key) for key in RESTORED_KEYS}
        snap = await graph.snapshot(lab, record)
        try:
            await graph.revert_graph(
                lab, group_id, record.new_uuid, record.episode_uuid, record.old_uuid, record.prior_props
            )
        except BaseException:
            await graph.restore_snapshot(lab, record, snap, applied)
            raise
        try:
            return repo.write_undo(store, record, one_line(actor))
        except BaseException:
            await graph.restore_snapshot(lab, record, snap, applied)
            raise
