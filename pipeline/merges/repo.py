"""The merges' SQLite tables (migration 0003): pairs an admin rejected, and merges that were undone.

The merge records themselves live in the graph (`records.py`); these are what the graph does not keep.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import astuple, dataclass, fields
from typing import Any

from pipeline.merges.records import MergeRecord
from pipeline.store import Store


@dataclass(frozen=True)
class Rejection:
    uuid_a: str  # uuid_a < uuid_b
    uuid_b: str
    name_a: str
    name_b: str
    score: float | None
    rejected_by: str
    rejected_at: str

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Rejection:
        return cls(*(row[f.name] for f in fields(cls)))


def rejections(store: Store, group_id: str) -> list[Rejection]:
    """The deal's rejected pairs, newest first."""
    rows = store.query(
        "SELECT * FROM merge_rejections WHERE group_id = ? ORDER BY rejected_at DESC, uuid_a", (group_id,)
    )
    return [Rejection.from_row(r) for r in rows]


def rejected_pair_set(store: Store, group_id: str) -> set[frozenset[str]]:
    return {frozenset((r.uuid_a, r.uuid_b)) for r in rejections(store, group_id)}


def insert_rejection(conn: sqlite3.Connection, group_id: str, rejection: Rejection) -> None:
    conn.execute(
        "INSERT INTO merge_rejections (group_id, uuid_a, uuid_b, name_a, name_b, score, rejected_by, rejected_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (group_id, *astuple(rejection)),
    )


def insert_undo(conn: sqlite3.Connection, group_id: str, record: MergeRecord, undone_by: str, undone_at: str) -> None:
    """Keep the merge record as it was: the graph forgets it on undo."""
    conn.execute(
        "INSERT INTO merge_undos (group_id, merge_uuid, alias_uuid, canonical_uuid, record, undone_by, undone_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            group_id,
            record.uuid,
            record.alias_uuid,
            record.canonical_uuid,
            json.dumps(record.describe(), sort_keys=True),
            undone_by,
            undone_at,
        ),
    )


def undone_merges(store: Store, group_id: str) -> list[dict[str, Any]]:
    """Merges undone in this deal, newest first: the record as it was, who undid it and when."""
    rows = store.query("SELECT * FROM merge_undos WHERE group_id = ? ORDER BY id DESC", (group_id,))
    return [{**json.loads(r["record"]), "undone_by": r["undone_by"], "undone_at": r["undone_at"]} for r in rows]
