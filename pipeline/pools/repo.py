"""Judging-pool SQL: a pool's row is written with its spot-check queue (one transaction), read beside it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from pipeline.deals.access import access_of
from pipeline.pools.records import Pool, PoolKind, PoolProgress
from pipeline.retrieval.setting import Setting
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import insert_queue, queue_items
from pipeline.spotcheck.sampling import ItemDraft
from pipeline.spotcheck.verdicts import Grades, deal_grades
from pipeline.store.db import Store

POOL_SQL = """
SELECT p.queue_id, q.name, q.group_id, p.kind, p.set_name, p.settings, p.pairs, p.skipped, p.of_queue,
       q.created_by, q.created_at
FROM judging_pools p JOIN spotcheck_queues q ON q.id = p.queue_id
"""


def insert_pool(
    store: Store,
    spec: QueueSpec,
    items: Sequence[ItemDraft],
    *,
    kind: PoolKind,
    set_name: str,
    settings: Sequence[Setting] = (),
    skipped: int = 0,
    of_queue: int | None = None,
) -> Pool:
    """The queue, its items, its audit entry and the pool row: all in one transaction, or nothing."""

    def pool_row(conn: sqlite3.Connection, queue_id: int) -> dict[str, Any]:
        pooled = [{"label": s.label, **s.to_dict()} for s in settings]
        conn.execute(
            "INSERT INTO judging_pools (queue_id, kind, set_name, settings, pairs, skipped, of_queue) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (queue_id, kind, set_name, json.dumps(pooled), len(items), skipped, of_queue),
        )
        return {"pool": kind, "set": set_name, "settings": [s["label"] for s in pooled], "skipped": skipped}

    queue = insert_queue(store, spec, items, spec.name, spec.created_by, also=pool_row)
    found = pool_of(store, queue.id)
    assert found is not None  # written in the transaction above
    return found


def pool_of(store: Store, queue_id: int) -> Pool | None:
    """The pool a queue holds; None for an ordinary review queue."""
    rows = store.query(POOL_SQL + " WHERE p.queue_id = ?", (queue_id,))
    if not rows or not access_of(store).permits(rows[0]["group_id"]):
        return None
    return Pool.from_row(rows[0])


def list_pools(store: Store, group_id: str) -> list[Pool]:
    """The deal's pools and calibration samples, newest first."""
    access_of(store).require(group_id)
    rows = store.query(POOL_SQL + " WHERE q.group_id = ? ORDER BY p.queue_id DESC", (group_id,))
    return [Pool.from_row(r) for r in rows]


def pool_progress(store: Store, pool: Pool, grades: Grades | None = None) -> PoolProgress:
    """How many of the pool's pairs analysts and the judge have graded (in this pool or any other queue);
    `grades`, when the caller already read the deal's."""
    grades = grades or deal_grades(store, pool.group_id)
    pairs = {(i.query_id or i.query, i.fact_uuid) for i in queue_items(store, pool.queue_id)}

    def graded(judged: dict[str, dict[str, int]]) -> int:
        return sum(1 for query, fact in pairs if fact in judged.get(query, {}))

    return PoolProgress(
        len(pairs),
        graded(grades.humans),
        graded(grades.judge),
    )
