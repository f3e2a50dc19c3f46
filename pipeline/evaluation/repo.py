"""Evaluation's SQL: saved experiments (written whole or not at all) and the sweep's two caches
(first-stage pools, reranker scores); what the cached values mean is in `cache.py`."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pipeline.deals.access import access_of
from pipeline.errors import InvalidInput
from pipeline.store.db import Store, utc_now

# Rows in, rows out: the records and their (de)serialisation are in experiments.py and cache.py
# (the sweep imports the cache, so this module must not import the sweep's records).

# --- experiments --------------------------------------------------------------------------------

INSERT_EXPERIMENT = """
INSERT INTO experiments (name, group_id, created_at, judgments, queries, duration_s, spec, payload)
VALUES (:name, :group_id, :created_at, :judgments, :queries, :duration_s, :spec, :payload)
"""
INSERT_SETTING = """
INSERT INTO experiment_settings (experiment_id, setting, candidates, top_k, reranker, reranker_model, in_grid, metrics,
                                 by_type, p50_ms, p95_ms, tokens, cost_usd, fallbacks, p_value, p_ttest, recipe)
VALUES (:experiment_id, :setting, :candidates, :top_k, :reranker, :reranker_model, :in_grid, :metrics, :by_type,
        :p50_ms, :p95_ms, :tokens, :cost_usd, :fallbacks, :p_value, :p_ttest, :recipe)
"""
INSERT_QUERY = """
INSERT INTO experiment_queries (experiment_id, setting, query_id, metrics, latency_ms, ranking)
VALUES (:experiment_id, :setting, :query_id, :metrics, :latency_ms, :ranking)
"""


def insert_experiment(
    store: Store,
    head: Mapping[str, Any],
    settings: Sequence[Mapping[str, Any]],
    queries: Sequence[Mapping[str, Any]],
    then: Callable[[sqlite3.Connection, int], None] | None = None,
) -> int:
    """The experiment row, its settings' and its queries' rows in one transaction (with `then(conn, id)`, e.g. the
    sweep job's end, in the same one); its id. A name already used on the deal is refused."""
    access_of(store).require(str(head["group_id"]), "save an experiment")
    try:
        with store.transaction() as conn:
            exp_id = int(conn.execute(INSERT_EXPERIMENT, head).lastrowid or 0)
            conn.executemany(INSERT_SETTING, [{**row, "experiment_id": exp_id} for row in settings])
            conn.executemany(INSERT_QUERY, [{**row, "experiment_id": exp_id} for row in queries])
            if then is not None:
                then(conn, exp_id)
    except sqlite3.IntegrityError:
        raise InvalidInput(
            f"An experiment called {head['name']!r} already exists on deal {head['group_id']!r}; pick another name."
        ) from None
    return exp_id


def experiment_names(store: Store, group_id: str) -> set[str]:
    return {r["name"] for r in store.query("SELECT name FROM experiments WHERE group_id = ?", (group_id,))}


def rename_experiment_row(store: Store, exp_id: int, group_id: str, name: str) -> None:
    access_of(store).require(group_id, "rename an experiment")
    try:
        with store.transaction() as conn:
            found = conn.execute(
                "UPDATE experiments SET name = ? WHERE id = ? AND group_id = ?", (name, exp_id, group_id)
            ).rowcount
    except sqlite3.IntegrityError:
        raise InvalidInput(
            f"An experiment called {name!r} already exists on deal {group_id!r}; pick another name."
        ) from None
    if not found:
        raise InvalidInput(f"No experiment #{exp_id}.")


def experiment_heads(store: Store, group_id: str | None = None) -> list[sqlite3.Row]:
    """The experiments of one deal (or all the store's deployment may show), newest first, without payloads."""
    allowed, params = access_of(store).sql("group_id")
    return store.query(
        # the partial mark lives in the payload (no schema change); a head reads only that key of it
        "SELECT id, name, group_id, created_at, judgments, queries, duration_s, "
        "json_extract(payload, '$.partial') AS partial FROM experiments "
        f"WHERE (:g IS NULL OR group_id = :g) AND {allowed} ORDER BY id DESC",
        {**params, "g": group_id},
    )


def experiment_rows(
    store: Store, exp_id: int, rankings: bool = True
) -> tuple[sqlite3.Row, list[sqlite3.Row], list[sqlite3.Row]]:
    """(experiment row, its settings' rows, its queries' rows); another deployment's experiment is "no experiment".
    Without `rankings`, each query row's ranking (most of an experiment's bytes) is read as an empty list."""
    allowed, params = access_of(store).sql("group_id")
    head = store.query(
        f"SELECT *, json_extract(payload, '$.partial') AS partial FROM experiments WHERE id = :id AND {allowed}",
        {**params, "id": exp_id},
    )
    if not head:
        raise InvalidInput(f"No experiment #{exp_id}.")
    settings = store.query("SELECT * FROM experiment_settings WHERE experiment_id = ?", (exp_id,))
    ranking = "ranking" if rankings else "'[]' AS ranking"
    queries = store.query(
        f"SELECT setting, query_id, metrics, latency_ms, {ranking} FROM experiment_queries WHERE experiment_id = ?",
        (exp_id,),
    )
    return head[0], settings, queries


def experiment_rankings(store: Store, exp_id: int, settings: Sequence[str]) -> list[sqlite3.Row]:
    """The query rows of a few settings of an experiment, rankings included (the page reads these on demand)."""
    marks = ", ".join("?" * len(settings))
    return store.query(
        "SELECT setting, query_id, metrics, latency_ms, ranking FROM experiment_queries "
        f"WHERE experiment_id = ? AND setting IN ({marks})",
        (exp_id, *settings),
    )


def audit_entry_time(store: Store, audit_id: int) -> str | None:
    """When an audit entry was written (a run's fingerprint names the deal's newest change by it)."""
    rows = store.query("SELECT at FROM audit_log WHERE id = ?", (audit_id,))
    return rows[0]["at"] if rows else None


# --- first-stage cache ---------------------------------------------------------------------------

FirstStageKey = tuple[str, str, str]  # (deal, graph fingerprint, temporal filter)


def cached_pool(store: Store, key: FirstStageKey, recipe: str, depth: int, query: str) -> sqlite3.Row | None:
    """The (ms, payload) row of one query's pool of one recipe at one depth, or None."""
    rows = store.query(
        "SELECT ms, payload FROM eval_first_stage WHERE group_id = ? AND fingerprint = ? AND filter = ? "
        "AND recipe = ? AND depth = ? AND query = ?",
        (*key, recipe, depth, query),
    )
    return rows[0] if rows else None


def save_pools(store: Store, key: FirstStageKey, query: str, pools: Sequence[tuple[str, int, float, bytes]]) -> None:
    """One query's pools, (recipe, depth, ms, payload) each, in one transaction."""
    now = utc_now()
    with store.transaction() as conn:
        conn.executemany(
            "INSERT OR REPLACE INTO eval_first_stage (group_id, fingerprint, filter, recipe, depth, query, ms, "
            "payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(*key, recipe, depth, query, ms, payload, now) for recipe, depth, ms, payload in pools],
        )


# --- reranker-score cache ------------------------------------------------------------------------


def cached_scores(store: Store, model: str, pool_key: str, query: str) -> list[sqlite3.Row]:
    """(uuid, fact_sha, score, ms, tokens) rows of every fact scored for this model, pool and query."""
    return store.query(
        "SELECT uuid, fact_sha, score, ms, tokens FROM rerank_cache WHERE model = ? AND pool = ? AND query = ?",
        (model, pool_key, query),
    )


def save_scores(store: Store, model: str, pool_key: str, query: str, rows: Sequence[tuple[Any, ...]]) -> None:
    """Rows of (uuid, fact_sha, score, ms share, tokens share), in one transaction."""
    now = utc_now()
    with store.transaction() as conn:
        conn.executemany(
            "INSERT OR REPLACE INTO rerank_cache (model, pool, query, uuid, fact_sha, score, ms, tokens, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(model, pool_key, query, *row, now) for row in rows],
        )


def count_scores(store: Store, model: str | None = None) -> int:
    sql = "SELECT COUNT(*) FROM rerank_cache" + (" WHERE model = ?" if model else "")
    return int(store.query(sql, (model,) if model else ())[0][0])
