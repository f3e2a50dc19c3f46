"""The audit log's SQL: append an entry (alone or inside the caller's transaction), read entries back."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pipeline.audit.records import AuditEntry, details_json
from pipeline.deals.access import access_of
from pipeline.store.db import Store, utc_now
from pipeline.utc import parse_time

INSERT_ENTRY = "INSERT INTO audit_log (at, actor, action, group_id, target, details) VALUES (?, ?, ?, ?, ?, ?)"


def record_audit(
    store: Store,
    actor: str,
    action: str,
    group_id: str,
    target: str,
    details: dict[str, Any],
    conn: sqlite3.Connection | None = None,
) -> int:
    """Record one admin action; pass `conn` to make it part of a larger transaction."""
    args = (utc_now(), actor, action, group_id, target, details_json(details))
    if conn is not None:
        return int(conn.execute(INSERT_ENTRY, args).lastrowid or 0)
    with store.transaction() as own:
        return int(own.execute(INSERT_ENTRY, args).lastrowid or 0)


def audit_log(store: Store, group_id: str | None = None, action_prefix: str = "", limit: int = 500) -> list[AuditEntry]:
    """The newest entries first, of one deal (or all the store's deployment may show) whose action starts
    with `action_prefix`."""
    allowed, params = access_of(store).sql("group_id")
    rows = store.query(
        f"""
        SELECT * FROM audit_log
        WHERE (:g IS NULL OR group_id = :g) AND {allowed} AND action LIKE :prefix
        ORDER BY id DESC LIMIT :limit
        """,
        {**params, "g": group_id, "prefix": f"{action_prefix}%", "limit": limit},
    )
    return [AuditEntry.from_row(r) for r in rows]


# The admin actions that change what a query retrieves (spot-check, judging and read-only flags do not).
GRAPH_ACTIONS = (
    "fact.correct",
    "fact.undo_correct",
    "merge",
    "merge.undo",
    "deal.reset_demo",
    "deal.replace",
    "journal.rollback",
    "journal.complete",
)


def graph_changes(store: Store, group_id: str, start: datetime, end: datetime) -> list[AuditEntry]:
    """The deal's admin actions that changed its graph from `start` until before `end`, oldest first."""
    marks = ", ".join("?" for _ in GRAPH_ACTIONS)
    rows = store.query(
        f"SELECT * FROM audit_log WHERE group_id = ? AND action IN ({marks}) ORDER BY id",
        (group_id, *GRAPH_ACTIONS),
    )
    entries = [AuditEntry.from_row(r) for r in rows]
    return [e for e in entries if (at := parse_time(e.at)) is not None and start <= at < end]


def last_audit_id(store: Store, group_id: str) -> int:
    """The id of the deal's newest audit entry (0 when none): a cheap sign that an admin action touched it."""
    rows = store.query("SELECT COALESCE(MAX(id), 0) AS n FROM audit_log WHERE group_id = ?", (group_id,))
    return int(rows[0]["n"])


@dataclass(frozen=True)
class AuditFilter:
    """Which entries the Audit log page shows: any of these deals, actions and people (empty = all)."""

    deals: Collection[str] = ()
    actions: Collection[str] = ()
    actors: Collection[str] = ()


def _in(column: str, values: Collection[str], name: str) -> tuple[str, dict[str, Any]]:
    """`column IN (...)` with one parameter a value (`column` is a constant here, never user text)."""
    if not values:
        return "1 = 1", {}
    keys = {f"{name}_{i}": v for i, v in enumerate(sorted(values))}
    return f"{column} IN ({', '.join(':' + k for k in keys)})", keys


def _visible(store: Store) -> tuple[str, dict[str, Any]]:
    """The deals the store may show, and entries of no deal (a wrong admin secret names none)."""
    allowed, params = access_of(store).sql("group_id")
    return f"({allowed} OR group_id = '')", params


def filtered_audit_log(store: Store, where: AuditFilter, limit: int = 5000) -> list[AuditEntry]:
    """The newest entries first that pass `where`, of the deals the store may show."""
    clauses, params = zip(
        _visible(store),
        _in("group_id", where.deals, "deal"),
        _in("action", where.actions, "action"),
        _in("actor", where.actors, "actor"),
        strict=True,
    )
    rows = store.query(
        f"SELECT * FROM audit_log WHERE {' AND '.join(clauses)} ORDER BY id DESC LIMIT :limit",
        {k: v for p in params for k, v in p.items()} | {"limit": limit},
    )
    return [AuditEntry.from_row(r) for r in rows]


def audit_facets(store: Store) -> dict[str, list[str]]:
    """The distinct deals, actions and people of the visible log, sorted: the filters' options."""
    clause, params = _visible(store)
    return {
        facet: [
            r["v"]
            for r in store.query(f"SELECT DISTINCT {column} AS v FROM audit_log WHERE {clause} ORDER BY v", params)
        ]
        for facet, column in (("deals", "group_id"), ("actions", "action"), ("actors", "actor"))
    }
