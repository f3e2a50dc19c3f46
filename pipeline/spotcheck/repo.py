"""Spot-check SQL, queues: queues with their items (each queue written whole with its audit entry, or not at
all; Compare's open queue grows an item at a time), and the access check every read and write of a queue or an
item makes. Reviewers' answers and adjudications are `repo_answers.py`."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from pipeline.audit import record_audit
from pipeline.deals.access import access_of
from pipeline.errors import InvalidInput
from pipeline.spotcheck.records import Queue, QueueItem, QueueSpec
from pipeline.spotcheck.sampling import ItemDraft
from pipeline.store.db import Store, utc_now

# --- queues ----------------------------------------------------------------------------------------

INSERT_ITEM = """
INSERT INTO spotcheck_items (queue_id, position, query_id, query, run_id, fact_uuid, fact, rank, score, superseded,
                             signals, episode_uuid, channel, document_name, citation)
VALUES (:queue_id, :position, :query_id, :query, :run_id, :fact_uuid, :fact, :rank, :score, :superseded, :signals,
        :episode_uuid, :channel, :document_name, :citation)
"""
QUEUE_SQL = """
SELECT q.*, (SELECT COUNT(*) FROM spotcheck_items i WHERE i.queue_id = q.id) AS item_count
FROM spotcheck_queues q
"""


def require_queue(store: Store, queue_id: int) -> None:
    """Refuse a queue of a deal the store's deployment may not show, as if it did not exist."""
    access = access_of(store)
    if access.restricted:
        rows = store.query("SELECT group_id FROM spotcheck_queues WHERE id = ?", (queue_id,))
        if not rows or not access.permits(rows[0][0]):
            raise InvalidInput(f"No spot-check queue #{queue_id}.")


def _insert_queue_row(conn: sqlite3.Connection, spec: QueueSpec, name: str, created_by: str, params_json: str) -> int:
    """The queue's row, in `conn`'s transaction; its id."""
    cursor = conn.execute(
        """
        INSERT INTO spotcheck_queues (name, group_id, source, size, seed, priority, params, created_by, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        (name, spec.group_id, spec.source, spec.size, spec.seed, spec.priority, params_json, created_by, utc_now()),
    )
    return int(cursor.lastrowid or 0)


def insert_queue(
    store: Store,
    spec: QueueSpec,
    items: Sequence[ItemDraft],
    name: str,
    created_by: str,
    also: Callable[[sqlite3.Connection, int], dict[str, Any]] | None = None,
) -> Queue:
    """The queue row, its items in order and its audit entry, in one transaction. A name already used on
    the deal is refused. `also(conn, queue_id)` writes rows that belong with the queue (a judging pool's) in
    the same transaction and returns what its audit entry adds."""
    access_of(store).require(spec.group_id, "create a spot-check queue")
    try:
        with store.transaction() as conn:
            queue_id = _insert_queue_row(conn, spec, name, created_by, spec.params_json())
            conn.executemany(
                INSERT_ITEM,
                [
                    {"queue_id": queue_id, "position": position, **QueueItem.columns(d)}
                    for position, d in enumerate(items, start=1)
                ],
            )
            details = {
                "queue_id": queue_id,
                "source": spec.source,
                "size": spec.size,
                "seed": spec.seed,
                "priority": spec.priority,
                "items": len(items),
                **spec.params(),
                **(also(conn, queue_id) if also else {}),
            }
            record_audit(store, created_by, "spotcheck.queue_created", spec.group_id, name, details, conn=conn)
    except sqlite3.IntegrityError:
        raise InvalidInput(f"A queue named {name!r} already exists on deal {spec.group_id!r}.") from None
    return get_queue(store, queue_id)


def append_item(
    store: Store,
    spec: QueueSpec,
    params: dict[str, Any],
    draft: ItemDraft,
    same: Callable[[QueueItem], bool],
) -> QueueItem:
    """The item of the deal's open queue `spec.name` holding `draft`'s fact that `same` accepts, else `draft`
    appended after the queue's last item; the queue is created with the first item (its row with `params`, and
    its audit entry), by `spec.created_by`. An open queue's size is its item count. One transaction, begun
    IMMEDIATE: a second session appending the same pair waits for this one and then finds its item. A queue of
    that name without `params` (one built on the Spot-check page) is refused."""
    access_of(store).require(spec.group_id, "add to a spot-check queue")
    with store.transaction() as conn:
        row = conn.execute(
            "SELECT id, params FROM spotcheck_queues WHERE group_id = ? AND name = ?", (spec.group_id, spec.name)
        ).fetchone()
        if row is None:
            queue_id = _insert_queue_row(conn, spec, spec.name, spec.created_by, json.dumps(params, sort_keys=True))
            details = {
                "queue_id": queue_id,
                "source": spec.source,
                "size": 1,
                "seed": spec.seed,
                "priority": spec.priority,
                "items": 1,
                **params,
            }
            record_audit(
                store, spec.created_by, "spotcheck.queue_created", spec.group_id, spec.name, details, conn=conn
            )
        else:
            if any(json.loads(row["params"]).get(k) != v for k, v in params.items()):
                raise InvalidInput(
                    f"Deal {spec.group_id!r} has a queue named {spec.name!r} that was not made here: rename it."
                )
            queue_id = int(row["id"])
            rows = conn.execute(
                "SELECT * FROM spotcheck_items WHERE queue_id = ? AND fact_uuid = ? ORDER BY position",
                (queue_id, draft.fact_uuid),
            ).fetchall()
            for found in map(QueueItem.from_row, rows):
                if same(found):
                    return found
        position = conn.execute(
            "SELECT COALESCE(MAX(position), 0) + 1 FROM spotcheck_items WHERE queue_id = ?", (queue_id,)
        ).fetchone()[0]
        cursor = conn.execute(INSERT_ITEM, {"queue_id": queue_id, "position": position, **QueueItem.columns(draft)})
        conn.execute(
            "UPDATE spotcheck_queues SET size = (SELECT COUNT(*) FROM spotcheck_items WHERE queue_id = :q) "
            "WHERE id = :q",
            {"q": queue_id},
        )
        added = conn.execute("SELECT * FROM spotcheck_items WHERE id = ?", (cursor.lastrowid,)).fetchone()
    return QueueItem.from_row(added)


def get_queue(store: Store, queue_id: int) -> Queue:
    require_queue(store, queue_id)
    rows = store.query(QUEUE_SQL + " WHERE q.id = ?", (queue_id,))
    if not rows:
        raise InvalidInput(f"No spot-check queue #{queue_id}.")
    return Queue.from_row(rows[0])


def queue_named(store: Store, group_id: str, name: str) -> Queue | None:
    access_of(store).require(group_id)
    rows = store.query(QUEUE_SQL + " WHERE q.group_id = ? AND q.name = ?", (group_id, name))
    return Queue.from_row(rows[0]) if rows else None


def list_queues(store: Store, group_id: str) -> list[Queue]:
    """The deal's queues, newest first."""
    access_of(store).require(group_id)
    rows = store.query(QUEUE_SQL + " WHERE q.group_id = ? ORDER BY q.id DESC", (group_id,))
    return [Queue.from_row(r) for r in rows]


def queue_items(store: Store, queue_id: int) -> list[QueueItem]:
    """The queue's items in their sampled order."""
    require_queue(store, queue_id)
    rows = store.query("SELECT * FROM spotcheck_items WHERE queue_id = ? ORDER BY position", (queue_id,))
    return [QueueItem.from_row(r) for r in rows]


def get_item(store: Store, item_id: int) -> QueueItem:
    """One item (its fact and citation), refused like a missing one when the deployment may not show it."""
    return QueueItem.from_row(require_item(store, store.connection(), item_id))


def require_item(store: Store, conn: sqlite3.Connection, item_id: int) -> sqlite3.Row:
    """The item's row (with its queue's deal), refused like a missing one when the deployment may not show it."""
    item = conn.execute(
        "SELECT i.*, q.group_id FROM spotcheck_items i JOIN spotcheck_queues q ON q.id = i.queue_id WHERE i.id = ?",
        (item_id,),
    ).fetchone()
    if not item:
        raise InvalidInput(f"No spot-check item #{item_id}: the queue may have been removed.")
    require_queue(store, int(item["queue_id"]))
    return item
