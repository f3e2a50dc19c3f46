"""The journal's SQL (migration 0009). Every write is its own small transaction, except `mark_committed`,
which runs inside the caller's transaction so the feature record, its audit entry and the commit land together."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from pipeline.journal.records import COMMITTED, OPEN, JournalEntry
from pipeline.store.db import Store, utc_now


def _json(value: Any) -> str:
    return json.dumps(value, default=str, sort_keys=True)


def insert_entry(store: Store, entry_id: str, kind: str, group_id: str, actor: str, before: dict[str, Any]) -> None:
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO admin_journal (id, kind, group_id, actor, before, steps, status, created_at)"
            " VALUES (?, ?, ?, ?, ?, '[]', ?, ?)",
            (entry_id, kind, group_id, actor, _json(before), OPEN, utc_now()),
        )


def add_step(store: Store, entry_id: str, step: str) -> None:
    with store.transaction() as conn:
        row = conn.execute("SELECT steps FROM admin_journal WHERE id = ?", (entry_id,)).fetchone()
        steps = [*json.loads(row["steps"]), step]
        conn.execute("UPDATE admin_journal SET steps = ? WHERE id = ?", (_json(steps), entry_id))


def mark_committed(conn: sqlite3.Connection, entry_id: str) -> None:
    """Inside the caller's transaction; refuses (raising) an entry that is no longer open."""
    updated = conn.execute(
        "UPDATE admin_journal SET status = ?, finished_at = ? WHERE id = ? AND status = ?",
        (COMMITTED, utc_now(), entry_id, OPEN),
    ).rowcount
    if updated != 1:
        raise RuntimeError(f"journal entry {entry_id} is no longer open")


def mark_finished(conn: sqlite3.Connection, entry_id: str, status: str, outcome: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE admin_journal SET status = ?, finished_at = ?, outcome = ? WHERE id = ? AND status = ?",
        (status, utc_now(), _json(outcome), entry_id, OPEN),
    )


def get_entry(store: Store, entry_id: str) -> JournalEntry | None:
    rows = store.query("SELECT * FROM admin_journal WHERE id = ?", (entry_id,))
    return JournalEntry.from_row(rows[0]) if rows else None


def open_entries(store: Store) -> list[JournalEntry]:
    """Entries no process is working on any more (only call this under the admin lock), oldest first."""
    rows = store.query("SELECT * FROM admin_journal WHERE status = ? ORDER BY created_at, rowid", (OPEN,))
    return [JournalEntry.from_row(r) for r in rows]


def entries(store: Store, group_id: str | None = None, limit: int = 200) -> list[JournalEntry]:
    rows = store.query(
        "SELECT * FROM admin_journal WHERE (:g IS NULL OR group_id = :g) ORDER BY created_at DESC, rowid DESC"
        " LIMIT :limit",
        {"g": group_id, "limit": limit},
    )
    return [JournalEntry.from_row(r) for r in rows]


def group_stamp(store: Store, group_id: str) -> tuple[object, ...]:
    """What changes with every journalled write of a deal: an entry begun, a step done, an entry finished."""
    rows = store.query(
        "SELECT count(*) AS n, max(created_at) AS begun, total(length(steps)) AS steps, max(finished_at) AS finished"
        " FROM admin_journal WHERE group_id = ?",
        (group_id,),
    )
    return tuple(rows[0])
