"""The deals' SQLite table (migration 0007): our bookkeeping of each deal and its read-only flag.

Earlier versions kept that bookkeeping as a `RetrievalLabDeal` node inside each deal's graph. At open, each such
node is copied into the store (unless the store already has a row for that deal) and, where the graph may be
written, deleted: a read-only attach only reads it (`migrate_legacy_deals`)."""

from __future__ import annotations

import sqlite3
from dataclasses import asdict

from pipeline.deals.records import GROUP_ID_PATTERN, DealRecord
from pipeline.graph.backend import GraphBackend
from pipeline.store import Store

# every column but read_only, which only `set_read_only` changes
BOOK_COLUMNS = (
    "name",
    "description",
    "source",
    "embedder_model",
    "embedder_dim",
    "content_hash",
    "created_at",
    "import_done",
    "import_total",
    "import_owner",
)


def deal_record(store: Store, group_id: str) -> DealRecord | None:
    rows = store.query("SELECT * FROM deals WHERE group_id = ?", (group_id,))
    return DealRecord.from_row(rows[0]) if rows else None


def deal_records(store: Store) -> dict[str, DealRecord]:
    return {r["group_id"]: DealRecord.from_row(r) for r in store.query("SELECT * FROM deals")}


def save_deal(store: Store, record: DealRecord) -> None:
    """Insert or update our bookkeeping of a deal; its read-only flag stays as it was."""
    values = asdict(record)
    columns = ", ".join(("group_id", *BOOK_COLUMNS))
    updates = ", ".join(f"{c} = excluded.{c}" for c in BOOK_COLUMNS)
    with store.transaction() as tx:
        tx.execute(
            f"INSERT INTO deals ({columns}) VALUES ({', '.join('?' * (len(BOOK_COLUMNS) + 1))})"
            f" ON CONFLICT (group_id) DO UPDATE SET {updates}",
            (record.group_id, *(values[c] for c in BOOK_COLUMNS)),
        )


def insert_deal_if_absent(store: Store, record: DealRecord) -> bool:
    """Add a row only where none exists (a migrated legacy record never overwrites ours); True if added."""
    columns = ("group_id", *BOOK_COLUMNS)
    values = asdict(record)
    with store.transaction() as tx:
        cursor = tx.execute(
            f"INSERT INTO deals ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            " ON CONFLICT (group_id) DO NOTHING",
            tuple(values[c] for c in columns),
        )
        return cursor.rowcount == 1


async def migrate_legacy_deals(backend: GraphBackend, store: Store) -> list[str]:
    """Move every `RetrievalLabDeal` node into the store; the group_ids that had one."""
    found = await backend.cypher.legacy_deals()
    for group_id, props in sorted(found.items()):
        if not GROUP_ID_PATTERN.fullmatch(group_id):
            continue
        insert_deal_if_absent(store, DealRecord.from_legacy_node(group_id, props))
        if not backend.is_read_only(group_id):
            await backend.cypher.delete_legacy_deal(group_id)
    return sorted(found)


def forget_content_hash(store: Store, group_id: str) -> None:
    """Before a rebuild: until the new hash is saved, a rerun must rebuild rather than skip."""
    with store.transaction() as tx:
        tx.execute("UPDATE deals SET content_hash = NULL WHERE group_id = ?", (group_id,))


def record_import_progress(store: Store, group_id: str, done: int) -> None:
    """Facts a loader has written so far (the row was claimed with the total)."""
    with store.transaction() as tx:
        tx.execute("UPDATE deals SET import_done = ? WHERE group_id = ?", (done, group_id))


def set_read_only(conn: sqlite3.Connection, group_id: str, read_only: bool) -> None:
    """Inside the caller's transaction (with its audit entry)."""
    conn.execute(
        "INSERT INTO deals (group_id, read_only) VALUES (?, ?)"
        " ON CONFLICT (group_id) DO UPDATE SET read_only = excluded.read_only",
        (group_id, int(read_only)),
    )


def read_only_groups(store: Store) -> set[str]:
    return {r["group_id"] for r in store.query("SELECT group_id FROM deals WHERE read_only = 1")}
