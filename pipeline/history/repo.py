"""Run history's SQL: write runs (each in one transaction: whole or absent, never half-written), read
one back, filter and count them, and the rows the latency and cost aggregates start from."""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, time, timedelta
from typing import Any

from pipeline.deals.access import DealAccess, access_of
from pipeline.errors import InvalidInput
from pipeline.history.records import (
    ALL_RUNS,
    STAGES,
    SUMMARY_FIELDS,
    FilterChoices,
    ModelUsage,
    RunFilter,
    RunSummary,
    Source,
    StoredRun,
    pack_payload,
    result_values,
    run_columns,
    run_from_dict,
    stage_values,
    unpack_payload,
)
from pipeline.retrieval.records import RetrievalRun
from pipeline.store.db import Store
from pipeline.store.integrity import damaged_record

MAX_LIST = 500
# A field named apart from its `runs` column. N is `candidates` everywhere in code, but the column keeps its first
# name, `num_candidates`: renaming it would need a migration (a rebuilt table on older SQLite) that every store
# already written must survive, for no gain a query can see. Rows are read into fields here, in this one place.
COLUMN_OF_FIELD = {"candidates": "num_candidates"}
SUMMARY_COLUMNS = ", ".join(f"r.{COLUMN_OF_FIELD.get(name, name)} AS {name}" for name in SUMMARY_FIELDS)
INSERT_RUN = """
INSERT INTO runs (created_at, at_epoch, source, group_id, query, num_candidates, top_k, reranker, reranker_model,
                  include_superseded, as_of, rerank_used, fallback_reason, rerank_tokens, rerank_cost_usd, total_ms,
                  result_count, first_stage, rerank_searches, recipe, cold)
VALUES (:created_at, :at_epoch, :source, :group_id, :query, :num_candidates, :top_k, :reranker, :reranker_model,
        :include_superseded, :as_of, :rerank_used, :fallback_reason, :rerank_tokens, :rerank_cost_usd, :total_ms,
        :result_count, :first_stage, :rerank_searches, :recipe, :cold)
"""


# --- writing ----------------------------------------------------------------------------------


def _insert(conn: sqlite3.Connection, payload: Mapping[str, Any], source: str, access: DealAccess) -> int:
    """Insert one run (the `to_dict()` shape) inside the caller's transaction; its new id."""
    columns = run_columns(payload, source)
    access.require(columns["group_id"], "record a run")
    run_id = int(conn.execute(INSERT_RUN, columns).lastrowid or 0)
    conn.executemany(
        "INSERT INTO run_stages (run_id, stage, ms) VALUES (?, ?, ?)",
        [(run_id, stage, ms) for stage, ms in stage_values(payload)],
    )
    conn.executemany(
        "INSERT INTO run_results (run_id, rank, uuid, score, first_stage_rank) VALUES (?, ?, ?, ?, ?)",
        [(run_id, *values) for values in result_values(payload)],
    )
    conn.execute("INSERT INTO run_payloads (run_id, payload) VALUES (?, ?)", (run_id, pack_payload(payload)))
    return run_id


def save_run(store: Store, run: RetrievalRun, source: Source) -> int:
    """Record one run in one transaction; returns its id."""
    payload = run.to_dict()
    with store.transaction() as conn:
        return _insert(conn, payload, source, access_of(store))


def save_payloads(store: Store, items: Iterable[tuple[Mapping[str, Any], Source]]) -> list[int]:
    """Record many runs, each a (`to_dict()` payload, source) pair, in one transaction: all or none."""
    with store.transaction() as conn:
        return [_insert(conn, payload, source, access_of(store)) for payload, source in items]


def load_run(store: Store, run_id: int) -> StoredRun:
    """One stored run; a run of a deal the store's deployment may not show is "no stored run" too."""
    allowed, params = access_of(store).sql("r.group_id")
    rows = store.query(
        f"SELECT {SUMMARY_COLUMNS}, p.payload FROM runs r JOIN run_payloads p ON p.run_id = r.id "
        f"WHERE r.id = :run_id AND {allowed}",
        {**params, "run_id": run_id},
    )
    if not rows:
        raise InvalidInput(f"No stored run #{run_id}.")
    values = dict(rows[0])
    try:
        payload = unpack_payload(values.pop("payload"))
    except (zlib.error, ValueError) as exc:  # bytes changed inside the store (UnicodeDecodeError: a ValueError)
        raise damaged_record(store.path, f"stored run #{run_id}", exc) from None
    return StoredRun(summary=RunSummary.from_row(values), run=run_from_dict(payload))


# --- filtering --------------------------------------------------------------------------------


def where(flt: RunFilter, access: DealAccess) -> tuple[str, dict[str, Any]]:
    """A parameterised WHERE clause over `runs r` (values are never spliced into the SQL), within the deals
    `access` allows."""
    allowed, params = access.sql("r.group_id")
    clauses = [allowed]
    if flt.group_id:
        clauses.append("r.group_id = :group_id")
        params["group_id"] = flt.group_id
    for name, values in (("reranker", flt.rerankers), ("source", flt.sources)):
        if values:
            keys = [f"{name}_{i}" for i in range(len(values))]
            clauses.append(f"r.{name} IN ({', '.join(':' + k for k in keys)})")
            params.update(zip(keys, values, strict=True))
    if flt.text.strip():
        escaped = flt.text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        clauses.append("r.query LIKE :text ESCAPE '\\'")
        params["text"] = f"%{escaped}%"
    if flt.since and flt.until and flt.since > flt.until:
        raise InvalidInput(f"The date range starts ({flt.since}) after it ends ({flt.until}).")
    if flt.since:
        clauses.append("r.at_epoch >= :since")
        params["since"] = datetime.combine(flt.since, time(), tzinfo=UTC).timestamp()
    if flt.until:
        clauses.append("r.at_epoch < :until")
        params["until"] = datetime.combine(flt.until + timedelta(days=1), time(), tzinfo=UTC).timestamp()
    return " AND ".join(clauses), params


def count_runs(store: Store, flt: RunFilter | None = None) -> int:
    clause, params = where(flt or ALL_RUNS, access_of(store))
    return int(store.query(f"SELECT COUNT(*) FROM runs r WHERE {clause}", params)[0][0])


def runs_stamp(store: Store) -> tuple[int, int]:
    """(how many runs, the newest id) over every run: it changes whenever a run is recorded or removed, for
    page caches to key on (one indexed read)."""
    count, newest = store.query("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM runs")[0]
    return int(count), int(newest)


def list_runs(store: Store, flt: RunFilter | None = None, limit: int = MAX_LIST) -> list[RunSummary]:
    """The newest matching runs first."""
    clause, params = where(flt or ALL_RUNS, access_of(store))
    rows = store.query(
        f"SELECT {SUMMARY_COLUMNS} FROM runs r WHERE {clause} ORDER BY r.at_epoch DESC, r.id DESC LIMIT :limit",
        {**params, "limit": limit},
    )
    return [RunSummary.from_row(row) for row in rows]


def asked_queries(store: Store, group_id: str, sources: Sequence[str] = ("dashboard", "cli")) -> list[tuple[str, int]]:
    """(query text, how many runs asked it) of the deal's runs from `sources`, the most recently asked first."""
    allowed, params = access_of(store).sql("r.group_id")
    keys = [f"source_{i}" for i in range(len(sources))]
    rows = store.query(
        f"""
        SELECT r.query, COUNT(*) AS asked FROM runs r
        WHERE {allowed} AND r.group_id = :group_id AND r.source IN ({", ".join(":" + k for k in keys)})
        GROUP BY r.query ORDER BY MAX(r.at_epoch) DESC, MAX(r.id) DESC
        """,
        {**params, "group_id": group_id, **dict(zip(keys, sources, strict=True))},
    )
    return [(row["query"], int(row["asked"])) for row in rows]


def filter_choices(store: Store) -> FilterChoices:
    """The values the run filters offer, from the runs the store's deployment may show."""
    allowed, params = access_of(store).sql("group_id")

    def distinct(column: str) -> tuple[str, ...]:  # column: a constant below, never user text
        sql = f"SELECT DISTINCT {column} FROM runs WHERE {allowed} ORDER BY {column}"
        return tuple(r[0] for r in store.query(sql, params))

    low, high = store.query(f"SELECT MIN(at_epoch), MAX(at_epoch) FROM runs WHERE {allowed}", params)[0]
    day = lambda ts: None if ts is None else datetime.fromtimestamp(ts, UTC).date()  # noqa: E731
    return FilterChoices(distinct("group_id"), distinct("reranker"), distinct("source"), day(low), day(high))


# --- rows for the latency and cost aggregates --------------------------------------------------


def stage_rows(store: Store, flt: RunFilter | None = None, stages: Sequence[str] = STAGES) -> list[tuple[Any, ...]]:
    """Per run: (id, at_epoch, N, reranker, reranker_model, ms of each of `stages` or None).

    One primary-key lookup per (run, stage) pivots the long `run_stages` table inside SQLite; on 10,000
    runs this is about twice as fast as a GROUP BY pivot.
    """
    unknown = set(stages) - set(STAGES)
    if unknown:
        raise InvalidInput(f"Unknown stages: {', '.join(sorted(unknown))}.")
    pivot = ", ".join(  # stage names are the constants in records.py, never user text
        f"(SELECT s.ms FROM run_stages s WHERE s.run_id = r.id AND s.stage = '{name}')" for name in stages
    )
    clause, params = where(flt or ALL_RUNS, access_of(store))
    sql = f"SELECT r.id, r.at_epoch, r.num_candidates, r.reranker, r.reranker_model, {pivot} FROM runs r WHERE {clause}"
    return [tuple(row) for row in store.query(sql + " ORDER BY r.id", params)]


def cold_run_ids(store: Store, flt: RunFilter | None = None) -> set[int]:
    """The ids of the matching runs that were cold (the first of their reranker on their deal in a process)."""
    clause, params = where(flt or ALL_RUNS, access_of(store))
    return {int(row[0]) for row in store.query(f"SELECT r.id FROM runs r WHERE {clause} AND r.cold = 1", params)}


def model_usage(store: Store, flt: RunFilter | None = None) -> list[ModelUsage]:
    clause, params = where(flt or ALL_RUNS, access_of(store))
    rows = store.query(
        f"""
        SELECT r.reranker, r.reranker_model, COUNT(*), SUM(r.rerank_tokens),
               SUM(r.fallback_reason IS NOT NULL), SUM(r.rerank_searches)
        FROM runs r WHERE {clause}
        GROUP BY r.reranker, r.reranker_model
        ORDER BY r.reranker, r.reranker_model
        """,
        params,
    )
    return [ModelUsage(r[0], r[1], int(r[2]), int(r[3] or 0), int(r[4] or 0), int(r[5] or 0)) for r in rows]
