"""Query-set SQL: a set is written whole in one transaction (its row, queries and judgments) or not at all;
replacing a set deletes the old one (its rows cascade) in that same transaction."""

from __future__ import annotations

import sqlite3

from pipeline.deals.access import access_of
from pipeline.errors import InvalidInput
from pipeline.query_sets.records import OWN_SOURCES, LabelledQuery, QuerySet, SaveResult, SetInfo
from pipeline.store.db import Store, utc_now

# the counts are columns of the set's row (migration 0024), written with the set: a listing reads no query or
# judgment row (`_counted` counts only for a row written without them, by a version from before 0024)
INFO_SQL = """
SELECT s.id, s.group_id, s.name, s.source, s.content_hash, s.created_at, s.created_by,
       s.query_count, s.judgment_count, s.scorable_count
FROM query_sets s
"""
COUNTS_SQL = """
SELECT (SELECT COUNT(*) FROM query_set_queries q WHERE q.set_id = :id) AS query_count,
       (SELECT COUNT(*) FROM query_set_judgments j WHERE j.set_id = :id) AS judgment_count,
       (SELECT COUNT(DISTINCT j.query_id) FROM query_set_judgments j WHERE j.set_id = :id AND j.grade >= 1)
           AS scorable_count
"""
# the deal's own set (built with it by the demo seed or a BEIR import) first, then the oldest judged one (an
# unjudged set, e.g. an imported query log, scores nothing: it is the default only when no set is judged)
OWN_FIRST = f"ORDER BY s.source IN ({', '.join(repr(s) for s in OWN_SOURCES)}) DESC, judgment_count > 0 DESC, s.id"


def _info(store: Store, row: sqlite3.Row) -> SetInfo:
    values = dict(row)
    if values["query_count"] is None:  # written by a version from before migration 0024
        values.update(dict(store.query(COUNTS_SQL, {"id": values["id"]})[0]))
    return SetInfo(
        id=values["id"],
        group_id=values["group_id"],
        name=values["name"],
        source=values["source"],
        content_hash=values["content_hash"],
        created_at=values["created_at"],
        created_by=values["created_by"],
        queries=values["query_count"],
        judgments=values["judgment_count"],
        scorable=values["scorable_count"],
    )


def list_sets(store: Store, group_id: str) -> list[SetInfo]:
    """The deal's sets, its own set first, then judged ones oldest first, then unjudged ones oldest first."""
    access_of(store).require(group_id)
    return [_info(store, r) for r in store.query(f"{INFO_SQL} WHERE s.group_id = ? {OWN_FIRST}", (group_id,))]


def get_set(store: Store, group_id: str, name: str | None = None) -> QuerySet | None:
    """The named set of the deal, or its default (own, else the oldest judged, else the oldest) when no name is
    given."""
    access_of(store).require(group_id)
    if name is None:
        rows = store.query(f"{INFO_SQL} WHERE s.group_id = ? {OWN_FIRST} LIMIT 1", (group_id,))
    else:
        rows = store.query(f"{INFO_SQL} WHERE s.group_id = ? AND s.name = ?", (group_id, name))
    if not rows:
        return None
    info = _info(store, rows[0])
    queries = store.query(
        "SELECT query_id, text, type, split FROM query_set_queries WHERE set_id = ? ORDER BY position", (info.id,)
    )
    qrels: dict[str, dict[str, int]] = {}
    judged = "SELECT query_id, fact_uuid, grade FROM query_set_judgments WHERE set_id = ? ORDER BY query_id, fact_uuid"
    for row in store.query(judged, (info.id,)):
        qrels.setdefault(row["query_id"], {})[row["fact_uuid"]] = row["grade"]
    return QuerySet(
        group_id=group_id,
        queries=tuple(LabelledQuery(r["query_id"], r["text"], r["type"], r["split"]) for r in queries),
        qrels=qrels,
        name=info.name,
        source=info.source,
        created_at=info.created_at,
        created_by=info.created_by,
    )


def _insert(conn: sqlite3.Connection, query_set: QuerySet, content_hash: str, created_by: str) -> None:
    judgments = sum(len(judged) for judged in query_set.qrels.values())
    scorable = sum(1 for judged in query_set.qrels.values() if any(g >= 1 for g in judged.values()))
    cursor = conn.execute(
        """
        INSERT INTO query_sets (group_id, name, source, content_hash, created_at, created_by, query_count,
                                judgment_count, scorable_count)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        (
            query_set.group_id,
            query_set.name,
            query_set.source,
            content_hash,
            utc_now(),
            created_by,
            len(query_set.queries),
            judgments,
            scorable,
        ),
    )
    set_id = int(cursor.lastrowid or 0)
    conn.executemany(  # generators: rows are made as SQLite takes them, not all at once
        "INSERT INTO query_set_queries (set_id, query_id, position, text, type, split) VALUES (?, ?, ?, ?, ?, ?)",
        ((set_id, q.id, position, q.text, q.type, q.split) for position, q in enumerate(query_set.queries)),
    )
    conn.executemany(
        "INSERT INTO query_set_judgments (set_id, query_id, fact_uuid, grade) VALUES (?, ?, ?, ?)",
        ((set_id, q, uuid, grade) for q, judged in query_set.qrels.items() for uuid, grade in judged.items()),
    )


def save_set(store: Store, query_set: QuerySet, created_by: str, replace: bool = False) -> SaveResult:
    """Write the set in one transaction. The same content under the same name: nothing to do. Other content
    under a name the deal already uses: refused, unless `replace`."""
    access_of(store).require(query_set.group_id, "save a query set")
    content_hash = query_set.content_hash()
    with store.transaction() as conn:
        existing = conn.execute(
            "SELECT id, content_hash FROM query_sets WHERE group_id = ? AND name = ?",
            (query_set.group_id, query_set.name),
        ).fetchone()
        if existing is not None and existing["content_hash"] == content_hash:
            status = "unchanged"
        elif existing is not None and not replace:
            raise InvalidInput(
                f"Deal {query_set.group_id!r} already has a different query set named {query_set.name!r}: "
                "pass --replace to replace it, or choose another --name."
            )
        else:
            if existing is not None:
                conn.execute("DELETE FROM query_sets WHERE id = ?", (existing["id"],))
            _insert(conn, query_set, content_hash, created_by)
            status = "replaced" if existing is not None else "created"
    return SaveResult(query_set.group_id, query_set.name, status, len(query_set.queries), query_set.judgments)


def delete_set(store: Store, group_id: str, name: str) -> bool:
    """Remove the deal's set called `name` (its queries and judgments go with it); False if there was none."""
    access_of(store).require(group_id, "delete a query set")
    with store.transaction() as conn:
        cursor = conn.execute("DELETE FROM query_sets WHERE group_id = ? AND name = ?", (group_id, name))
    return cursor.rowcount > 0


# --- sets kept as files before the store held them --------------------------------------------------


def imported_folders(store: Store) -> set[str]:
    """Deals whose file-based set has already been copied into the store."""
    return {r["group_id"] for r in store.query("SELECT group_id FROM query_set_file_imports")}


def import_file_set(store: Store, group_id: str, folder: str, query_set: QuerySet | None, created_by: str) -> bool:
    """Copy one file-based set into the store and record that it was copied, in one transaction. Nothing is
    written when another process recorded the folder first; the set is not written when the deal already has
    a set of that name (the store's wins). `query_set` None (unreadable files) only records the folder.
    True when the set was written."""
    with store.transaction() as conn:
        cursor = conn.execute(
            "INSERT OR IGNORE INTO query_set_file_imports (group_id, folder, set_name, imported_at) "
            "VALUES (?, ?, ?, ?)",
            (group_id, folder, query_set.name if query_set else None, utc_now()),
        )
        if cursor.rowcount != 1 or query_set is None:
            return False
        taken = conn.execute(
            "SELECT 1 FROM query_sets WHERE group_id = ? AND name = ?", (query_set.group_id, query_set.name)
        ).fetchone()
        if taken:
            return False
        _insert(conn, query_set, query_set.content_hash(), created_by)
        return True
