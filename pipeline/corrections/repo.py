"""Corrections in the SQLite store: each record lands in one transaction with its audit entry."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from pipeline.audit import record_audit
from pipeline.corrections.records import ACTION_CORRECT, ACTION_UNDO, Correction, CorrectionRefused
from pipeline.store.db import Store, utc_now


def list_corrections(store: Store, group_id: str) -> list[Correction]:
    rows = store.query("SELECT * FROM fact_corrections WHERE group_id = ? ORDER BY created_at DESC, id", (group_id,))
    return [Correction.from_row(r) for r in rows]


def get_correction(store: Store, correction_id: str) -> Correction | None:
    rows = store.query("SELECT * FROM fact_corrections WHERE id = ?", (correction_id,))
    return Correction.from_row(rows[0]) if rows else None


Commit = Callable[[sqlite3.Connection], None]  # marks the action's journal entry committed, in the same transaction


def write_correction(store: Store, record: Correction, commit: Commit | None = None) -> Correction:
    """The correction record, its audit entry and the journal's commit, in one SQLite transaction."""
    with store.transaction() as conn:
        audit_id = record_audit(
            store,
            record.actor,
            ACTION_CORRECT,
            record.group_id,
            record.old_uuid,
            {
                "correction_id": record.id,
                "old_uuid": record.old_uuid,
                "new_uuid": record.new_uuid,
                "episode_uuid": record.episode_uuid,
                "old_fact": record.old_fact,
                "new_fact": record.new_fact,
                "channel": record.channel,
                "author": record.author,
                "valid_at": record.valid_at,
                "prior": record.prior_props,
            },
            conn=conn,
        )
        conn.execute(
            """
            INSERT INTO fact_corrections (id, group_id, old_uuid, new_uuid, episode_uuid, mention_uuids, old_fact,
                new_fact, channel, author, valid_at, prior_props, actor, created_at, audit_id)
            VALUES (:id, :group_id, :old_uuid, :new_uuid, :episode_uuid, :mention_uuids, :old_fact, :new_fact,
                :channel, :author, :valid_at, :prior_props, :actor, :created_at, :audit_id)
            """,
            {**record.to_row(), "audit_id": audit_id},
        )
        if commit is not None:
            commit(conn)
    return Correction(**{**record.__dict__, "audit_id": audit_id})


def write_undo(store: Store, record: Correction, actor: str, commit: Commit | None = None) -> Correction:
    """Mark the correction undone, with its audit entry and the journal's commit, in one SQLite transaction
    (refused if already undone)."""
    at = utc_now()
    with store.transaction() as conn:
        audit_id = record_audit(
            store,
            actor,
            ACTION_UNDO,
            record.group_id,
            record.old_uuid,
            {
                "correction_id": record.id,
                "old_uuid": record.old_uuid,
                "new_uuid": record.new_uuid,
                "old_fact": record.old_fact,
                "new_fact": record.new_fact,
                "restored": record.prior_props,
            },
            conn=conn,
        )
        updated = conn.execute(
            "UPDATE fact_corrections SET undone_at = ?, undone_by = ?, undo_audit_id = ? "
            "WHERE id = ? AND undone_at IS NULL",
            (at, actor, audit_id, record.id),
        ).rowcount
        if updated != 1:
            raise CorrectionRefused("That correction was undone meanwhile; nothing was changed.")
        if commit is not None:
            commit(conn)
    return Correction(**{**record.__dict__, "undone_at": at, "undone_by": actor, "undo_audit_id": audit_id})


def discard_open_corrections(conn: sqlite3.Connection, group_id: str, closed_by: str, audit_id: int) -> int:
    """Inside a deal replace's transaction: close the deal's open corrections as discarded by it (the rebuilt
    graph holds neither side of them, so no undo is left to offer). How many were closed."""
    return conn.execute(
        "UPDATE fact_corrections SET undone_at = ?, undone_by = ?, undo_audit_id = ? "
        "WHERE group_id = ? AND undone_at IS NULL",
        (utc_now(), closed_by, audit_id, group_id),
    ).rowcount
