"""The vector index's recall checks, one row per measurement; the latest one per deal is what pages show."""

from __future__ import annotations

from dataclasses import astuple, fields

from pipeline.deals.access import access_of
from pipeline.retrieval.vector_index.records import RecallCheck
from pipeline.store.db import Store

# N is `candidates` in code; its column keeps its first name, `num_candidates`: renaming it would need a migration
# that every store already written must survive, for no gain a query can see. Fields map to columns here only.
COLUMN_OF_FIELD = {"candidates": "num_candidates"}
COLUMNS = ", ".join(COLUMN_OF_FIELD.get(f.name, f.name) for f in fields(RecallCheck))


def save_check(store: Store, check: RecallCheck) -> None:
    access_of(store).require(check.group_id, "record a vector index check")
    with store.transaction() as conn:
        conn.execute(
            f"INSERT INTO vector_index_checks ({COLUMNS}) VALUES ({', '.join('?' * len(fields(RecallCheck)))})",
            astuple(check),
        )


def latest_check(store: Store, group_id: str) -> RecallCheck | None:
    access_of(store).require(group_id)
    rows = store.query(
        f"SELECT {COLUMNS} FROM vector_index_checks WHERE group_id = ? ORDER BY id DESC LIMIT 1", (group_id,)
    )
    return RecallCheck(*rows[0]) if rows else None
