"""Run history: every retrieval run (dashboard, CLI, bench) kept in the SQLite store.

A run is stored as normalised rows for filtering and percentiles (`runs`, `run_stages`, `run_results`)
and as its full `RetrievalRun.to_dict()` JSON (`run_payloads`), from which `run_from_dict` rebuilds the
run exactly as it was, so the History page shows it again without re-running it. Each run is written
in one transaction: a failure (or a killed process) leaves it whole or absent, never half-written.
"""

from __future__ import annotations

import json
import math
import sqlite3
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal

from pipeline.errors import InvalidInput
from pipeline.ingest.loading import parse_time
from pipeline.retrieval.records import (
    Candidate,
    Citation,
    RankedCandidate,
    Result,
    RetrievalRun,
    Timings,
)
from pipeline.store.db import Store

Source = Literal["dashboard", "cli", "bench"]
SOURCES: tuple[Source, ...] = ("dashboard", "cli", "bench")
# the stages a run times, in pipeline order (bm25 / cosine / bfs / fusion run inside hybrid_search)
STAGES = ("embed_query", "bm25", "cosine", "bfs", "fusion", "hybrid_search", "rerank", "citations", "total")
MAX_LIST = 500


# --- writing ----------------------------------------------------------------------------------


def epoch(created_at: str) -> float:
    """Seconds since 1970 for an ISO timestamp (naive ones are taken as UTC)."""
    try:
        parsed = parse_time(created_at)
    except ValueError:
        parsed = None
    if parsed is None:
        raise InvalidInput(f"Run timestamp {created_at!r} is not an ISO date-time.")
    return parsed.timestamp()


def _pack(payload: Mapping[str, Any]) -> bytes:
    """zlib-compressed JSON: a 50-candidate run is ~56 KB as text, ~8 KB packed."""
    return zlib.compress(json.dumps(payload, default=str).encode(), 6)


def _unpack(value: bytes | str) -> dict[str, Any]:
    return json.loads(zlib.decompress(value) if isinstance(value, bytes) else value)


def _insert(conn: sqlite3.Connection, payload: Mapping[str, Any], source: str) -> int:
    """Insert one run (the `to_dict()` shape) inside the caller's transaction; its new id."""
    if source not in SOURCES:
        raise InvalidInput(f"Unknown run source {source!r}; one of: {', '.join(SOURCES)}.")
    timings = payload["timings"]
    stages: Mapping[str, float] = timings["stages_ms"]
    cursor = conn.execute(
        """
        INSERT INTO runs (created_at, at_epoch, source, group_id, query, num_candidates, top_k, reranker,
                          reranker_model, include_superseded, as_of, rerank_used, fallback_reason,
                          rerank_tokens, rerank_cost_usd, total_ms, result_count)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        (
            payload["created_at"], epoch(payload["created_at"]), source, payload["group"], payload["query"],
            int(payload["num_candidates"]), int(payload["top_k"]), payload["reranker"],
            payload.get("reranker_model") or "", int(bool(payload["include_superseded"])), payload.get("as_of"),
            int(bool(payload["rerank_used"])), payload.get("fallback_reason"), int(timings["rerank_tokens"] or 0),
            timings.get("rerank_cost_usd"), float(stages["total"]), len(payload["results"]),
        ),
    )  # fmt: skip
    run_id = int(cursor.lastrowid or 0)
    # NaN would be stored as NULL and break the NOT NULL constraint: the whole run is then rolled back
    conn.executemany(
        "INSERT INTO run_stages (run_id, stage, ms) VALUES (?, ?, ?)",
        [(run_id, name, None if math.isnan(ms) else float(ms)) for name, ms in stages.items()],
    )
    conn.executemany(
        "INSERT INTO run_results (run_id, rank, uuid, score, first_stage_rank) VALUES (?, ?, ?, ?, ?)",
        [(run_id, r["rank"], r["uuid"], r["score"], r["first_stage_rank"]) for r in payload["results"]],
    )
    conn.execute("INSERT INTO run_payloads (run_id, payload) VALUES (?, ?)", (run_id, _pack(payload)))
    return run_id


def save_run(store: Store, run: RetrievalRun, source: Source) -> int:
    """Record one run in one transaction; returns its id."""
    payload = run.to_dict()
    with store.transaction() as conn:
        return _insert(conn, payload, source)


def save_payloads(store: Store, items: Iterable[tuple[Mapping[str, Any], Source]]) -> list[int]:
    """Record many runs, each a (`to_dict()` payload, source) pair, in one transaction: all or none."""
    with store.transaction() as conn:
        return [_insert(conn, payload, source) for payload, source in items]


# --- reading one run back ---------------------------------------------------------------------


def run_from_dict(data: Mapping[str, Any]) -> RetrievalRun:
    """Rebuild a `RetrievalRun` from its `to_dict()` JSON (the inverse of `to_dict`)."""
    candidates = tuple(
        Candidate(
            uuid=c["uuid"], fact=c["fact"], relation=c["relation"], source_uuid=c["source_uuid"],
            target_uuid=c["target_uuid"], episodes=tuple(c["episodes"]), valid_at=c["valid_at"],
            invalid_at=c["invalid_at"], expired_at=c["expired_at"], fused_score=c["fused_score"],
            first_stage_rank=c["first_stage_rank"], method_ranks=dict(c["method_ranks"]),
        )
        for c in data["candidates"]
    )  # fmt: skip
    by_uuid = {c.uuid: c for c in candidates}
    reranked = tuple(
        RankedCandidate(by_uuid[r["uuid"]], r["rank"], r["rerank_score"], r["rerank_score_norm"])
        for r in data["reranked"]
    )
    ranked_by_uuid = {r.candidate.uuid: r for r in reranked}
    results = tuple(
        Result(ranked=ranked_by_uuid[r["uuid"]], citations=tuple(Citation(**c) for c in r["citations"]))
        for r in data["results"]
    )
    t = data["timings"]
    return RetrievalRun(
        query=data["query"], group_id=data["group"], num_candidates=data["num_candidates"], top_k=data["top_k"],
        reranker=data["reranker"], reranker_model=data["reranker_model"],
        include_superseded=data["include_superseded"], as_of=data["as_of"], candidates=candidates,
        reranked=reranked, results=results,
        timings=Timings(
            stages_ms=dict(t["stages_ms"]), rerank_tokens=t["rerank_tokens"], rerank_cost_usd=t["rerank_cost_usd"],
            over_budget=tuple(t["over_budget"]),
        ),
        rerank_used=data["rerank_used"], fallback_reason=data["fallback_reason"], created_at=data["created_at"],
    )  # fmt: skip


@dataclass(frozen=True)
class RunSummary:
    """One row of the history list (no payload)."""

    id: int
    created_at: str
    source: str
    group_id: str
    query: str
    num_candidates: int
    top_k: int
    reranker: str
    reranker_model: str
    include_superseded: bool
    as_of: str | None
    rerank_used: bool
    fallback_reason: str | None
    rerank_tokens: int
    rerank_cost_usd: float | None
    total_ms: float
    result_count: int

    @property
    def label(self) -> str:
        """'#12 · 2026-11-02 10:04 · local · "What was FY2025 revenue?"'."""
        query = self.query if len(self.query) <= 60 else self.query[:59] + "…"
        when = self.created_at[:16].replace("T", " ")
        return f"#{self.id} · {when} · {self.reranker} · N={self.num_candidates} · {query}"


@dataclass(frozen=True)
class StoredRun:
    summary: RunSummary
    run: RetrievalRun


_SUMMARY_COLUMNS = ", ".join(f"r.{name}" for name in RunSummary.__dataclass_fields__)


def _summary(row: sqlite3.Row | Mapping[str, Any]) -> RunSummary:
    values = dict(row)
    for flag in ("include_superseded", "rerank_used"):
        values[flag] = bool(values[flag])
    return RunSummary(**values)


def load_run(store: Store, run_id: int) -> StoredRun:
    rows = store.query(
        f"SELECT {_SUMMARY_COLUMNS}, p.payload FROM runs r JOIN run_payloads p ON p.run_id = r.id WHERE r.id = ?",
        (run_id,),
    )
    if not rows:
        raise InvalidInput(f"No stored run #{run_id}.")
    values = dict(rows[0])
    payload = _unpack(values.pop("payload"))
    return StoredRun(summary=_summary(values), run=run_from_dict(payload))


# --- filtering --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunFilter:
    """Which runs a page looks at; every field narrows, None / empty means no constraint."""

    group_id: str | None = None
    rerankers: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    text: str = ""
    since: date | None = None  # first day included (UTC)
    until: date | None = None  # last day included (UTC)

    def where(self) -> tuple[str, dict[str, Any]]:
        """A parameterised WHERE clause over `runs r` (values are never spliced into the SQL)."""
        clauses, params = ["1 = 1"], {}
        if self.group_id:
            clauses.append("r.group_id = :group_id")
            params["group_id"] = self.group_id
        for name, values in (("reranker", self.rerankers), ("source", self.sources)):
            if values:
                keys = [f"{name}_{i}" for i in range(len(values))]
                clauses.append(f"r.{name} IN ({', '.join(':' + k for k in keys)})")
                params.update(zip(keys, values, strict=True))
        if self.text.strip():
            escaped = self.text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            clauses.append("r.query LIKE :text ESCAPE '\\'")
            params["text"] = f"%{escaped}%"
        if self.since and self.until and self.since > self.until:
            raise InvalidInput(f"The date range starts ({self.since}) after it ends ({self.until}).")
        if self.since:
            clauses.append("r.at_epoch >= :since")
            params["since"] = datetime.combine(self.since, time(), tzinfo=UTC).timestamp()
        if self.until:
            clauses.append("r.at_epoch < :until")
            params["until"] = datetime.combine(self.until + timedelta(days=1), time(), tzinfo=UTC).timestamp()
        return " AND ".join(clauses), params


ALL_RUNS = RunFilter()


def count_runs(store: Store, flt: RunFilter | None = None) -> int:
    where, params = (flt or ALL_RUNS).where()
    return int(store.query(f"SELECT COUNT(*) FROM runs r WHERE {where}", params)[0][0])


def list_runs(store: Store, flt: RunFilter | None = None, limit: int = MAX_LIST) -> list[RunSummary]:
    """The newest matching runs first."""
    where, params = (flt or ALL_RUNS).where()
    rows = store.query(
        f"SELECT {_SUMMARY_COLUMNS} FROM runs r WHERE {where} ORDER BY r.at_epoch DESC, r.id DESC LIMIT :limit",
        {**params, "limit": limit},
    )
    return [_summary(row) for row in rows]


@dataclass(frozen=True)
class FilterChoices:
    """What the filter widgets can offer: the values present in the store."""

    group_ids: tuple[str, ...]
    rerankers: tuple[str, ...]
    sources: tuple[str, ...]
    first_day: date | None
    last_day: date | None


def filter_choices(store: Store) -> FilterChoices:
    def distinct(column: str) -> tuple[str, ...]:
        return tuple(r[0] for r in store.query(f"SELECT DISTINCT {column} FROM runs ORDER BY {column}"))

    low, high = store.query("SELECT MIN(at_epoch), MAX(at_epoch) FROM runs")[0]
    day = lambda ts: None if ts is None else datetime.fromtimestamp(ts, UTC).date()  # noqa: E731
    return FilterChoices(distinct("group_id"), distinct("reranker"), distinct("source"), day(low), day(high))


# --- rows for the latency and cost aggregates --------------------------------------------------


def stage_rows(store: Store, flt: RunFilter | None = None, stages: Sequence[str] = STAGES) -> list[tuple[Any, ...]]:
    """Per run: (id, at_epoch, num_candidates, reranker, reranker_model, ms of each of `stages` or None).

    One primary-key lookup per (run, stage) pivots the long `run_stages` table inside SQLite; on 10,000
    runs this is about twice as fast as a GROUP BY pivot.
    """
    unknown = set(stages) - set(STAGES)
    if unknown:
        raise InvalidInput(f"Unknown stages: {', '.join(sorted(unknown))}.")
    pivot = ", ".join(  # stage names are the constants above, never user text
        f"(SELECT s.ms FROM run_stages s WHERE s.run_id = r.id AND s.stage = '{name}')" for name in stages
    )
    where, params = (flt or ALL_RUNS).where()
    sql = f"SELECT r.id, r.at_epoch, r.num_candidates, r.reranker, r.reranker_model, {pivot} FROM runs r WHERE {where}"
    return [tuple(row) for row in store.query(sql + " ORDER BY r.id", params)]


@dataclass(frozen=True)
class ModelUsage:
    """Token use of one reranker / model over the filtered runs."""

    reranker: str
    model: str
    runs: int
    tokens: int
    fallbacks: int


def model_usage(store: Store, flt: RunFilter | None = None) -> list[ModelUsage]:
    where, params = (flt or ALL_RUNS).where()
    rows = store.query(
        f"""
        SELECT r.reranker, r.reranker_model, COUNT(*), SUM(r.rerank_tokens),
               SUM(r.fallback_reason IS NOT NULL)
        FROM runs r WHERE {where}
        GROUP BY r.reranker, r.reranker_model
        ORDER BY r.reranker, r.reranker_model
        """,
        params,
    )
    return [ModelUsage(r[0], r[1], int(r[2]), int(r[3] or 0), int(r[4] or 0)) for r in rows]


# --- comparing two runs ------------------------------------------------------------------------


@dataclass(frozen=True)
class RankDiff:
    uuid: str
    fact: str
    rank_a: int | None  # None: not in that run's top k
    rank_b: int | None

    @property
    def change(self) -> int | None:
        """Positive: ranked higher (smaller rank) in run B."""
        if self.rank_a is None or self.rank_b is None:
            return None
        return self.rank_a - self.rank_b


@dataclass(frozen=True)
class RunComparison:
    parameters: tuple[tuple[str, Any, Any], ...]  # (name, a, b)
    shared: int
    only_a: int
    only_b: int
    jaccard: float
    ranks: tuple[RankDiff, ...]
    stages_ms: tuple[tuple[str, float | None, float | None], ...]  # (stage, a, b)

    @property
    def differing(self) -> tuple[str, ...]:
        """The parameters that differ (when each run happened is not a parameter)."""
        return tuple(name for name, a, b in self.parameters if a != b and name != "when")


def run_parameters(run: RetrievalRun) -> dict[str, Any]:
    return {
        "deal": run.group_id,
        "query": run.query,
        "N (candidates)": run.num_candidates,
        "k (top-k)": run.top_k,
        "reranker": run.reranker,
        "model": run.reranker_model or "-",
        "include superseded": run.include_superseded,
        "as of": run.as_of or "-",
        "reranked": run.rerank_used,
        "fallback": run.fallback_reason or "-",
        "rerank tokens": run.timings.rerank_tokens,
        "when": run.created_at,
    }


def compare_runs(a: RetrievalRun, b: RetrievalRun) -> RunComparison:
    """Parameters, overlap of the top-k uuids, per-result rank differences and stage timings of two runs."""
    params_a, params_b = run_parameters(a), run_parameters(b)
    ranks_a = {r.uuid: r.ranked.rank for r in a.results}
    ranks_b = {r.uuid: r.ranked.rank for r in b.results}
    facts = {r.uuid: r.ranked.candidate.fact for r in (*b.results, *a.results)}
    order = [r.uuid for r in a.results] + [r.uuid for r in b.results if r.uuid not in ranks_a]
    shared = len(ranks_a.keys() & ranks_b.keys())
    union = len(ranks_a.keys() | ranks_b.keys())
    stages = [s for s in STAGES if s in a.timings.stages_ms or s in b.timings.stages_ms]
    return RunComparison(
        parameters=tuple((name, params_a[name], params_b[name]) for name in params_a),
        shared=shared,
        only_a=len(ranks_a) - shared,
        only_b=len(ranks_b) - shared,
        jaccard=shared / union if union else 1.0,
        ranks=tuple(RankDiff(u, facts[u], ranks_a.get(u), ranks_b.get(u)) for u in order),
        stages_ms=tuple((s, a.timings.stages_ms.get(s), b.timings.stages_ms.get(s)) for s in stages),
    )
