"""Run-history records and how a run is (de)serialised for the store.

A run is kept as normalised rows for filtering and percentiles (`runs`, `run_stages`, `run_results`)
and as its full `RetrievalRun.to_dict()` JSON, zlib-packed (`run_payloads`), from which `run_from_dict`
rebuilds the run exactly as it was, so the History page shows it again without re-running it.
"""

from __future__ import annotations

import json
import math
import sqlite3
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from pipeline.errors import InvalidInput
from pipeline.ingest.loading import parse_time
from pipeline.retrieval.recipes import LEGACY_RECIPE
from pipeline.retrieval.records import (
    Candidate,
    Citation,
    RankedCandidate,
    Result,
    RetrievalRun,
    Timings,
)
from pipeline.utc import stamp

Source = Literal["dashboard", "cli", "bench"]
SOURCES: tuple[Source, ...] = ("dashboard", "cli", "bench")
# the stages a run times, in pipeline order (bm25 / cosine / bfs / fusion run inside hybrid_search)
STAGES = ("embed_query", "bm25", "cosine", "bfs", "fusion", "hybrid_search", "rerank", "citations", "total")


@dataclass(frozen=True)
class RunSummary:
    """One row of the history list (no payload)."""

    id: int
    created_at: str
    source: str
    group_id: str
    query: str
    candidates: int  # N; stored in the `runs.num_candidates` column (see repo.SUMMARY_COLUMNS)
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
    recipe: str

    @classmethod
    def from_row(cls, row: sqlite3.Row | Mapping[str, Any]) -> RunSummary:
        values = dict(row)
        for flag in ("include_superseded", "rerank_used"):
            values[flag] = bool(values[flag])
        return cls(**values)


SUMMARY_FIELDS = tuple(RunSummary.__dataclass_fields__)


@dataclass(frozen=True)
class StoredRun:
    summary: RunSummary
    run: RetrievalRun


@dataclass(frozen=True)
class RunFilter:
    """Which runs a page looks at; every field narrows, None / empty means no constraint."""

    group_id: str | None = None
    rerankers: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    text: str = ""
    since: date | None = None  # first day included (UTC)
    until: date | None = None  # last day included (UTC)


ALL_RUNS = RunFilter()


@dataclass(frozen=True)
class FilterChoices:
    """What the filter widgets can offer: the values present in the store."""

    group_ids: tuple[str, ...]
    rerankers: tuple[str, ...]
    sources: tuple[str, ...]
    first_day: date | None
    last_day: date | None


@dataclass(frozen=True)
class ModelUsage:
    """Token use of one reranker / model over the filtered runs."""

    reranker: str
    model: str
    runs: int
    tokens: int
    fallbacks: int
    searches: int = 0  # billed search units (models billed per search)


# --- a run as rows ----------------------------------------------------------------------------


def epoch(created_at: str) -> float:
    """Seconds since 1970 for an ISO timestamp (naive ones are taken as UTC)."""
    try:
        parsed = parse_time(created_at)
    except ValueError:
        parsed = None
    if parsed is None:
        raise InvalidInput(f"Run timestamp {created_at!r} is not an ISO date-time.")
    return parsed.timestamp()


def run_columns(payload: Mapping[str, Any], source: str) -> dict[str, Any]:
    """The `runs` row of one run (the `to_dict()` shape); an unknown source or timestamp is refused."""
    if source not in SOURCES:
        raise InvalidInput(f"Unknown run source {source!r}; one of: {', '.join(SOURCES)}.")
    timings = payload["timings"]
    return {
        "created_at": payload["created_at"],
        "at_epoch": epoch(payload["created_at"]),
        "source": source,
        "group_id": payload["group"],
        "query": payload["query"],
        "num_candidates": int(payload["num_candidates"]),
        "top_k": int(payload["top_k"]),
        "reranker": payload["reranker"],
        "reranker_model": payload.get("reranker_model") or "",
        "include_superseded": int(bool(payload["include_superseded"])),
        "as_of": payload.get("as_of"),
        "rerank_used": int(bool(payload["rerank_used"])),
        "fallback_reason": payload.get("fallback_reason"),
        "rerank_tokens": int(timings["rerank_tokens"] or 0),
        "rerank_searches": int(timings.get("rerank_searches") or 0),
        "rerank_cost_usd": timings.get("rerank_cost_usd"),
        "total_ms": float(timings["stages_ms"]["total"]),
        "result_count": len(payload["results"]),
        "first_stage": payload.get("first_stage") or "exact",
        "recipe": payload.get("recipe") or LEGACY_RECIPE,
        "cold": int(bool(payload.get("cold"))),
    }


def stage_values(payload: Mapping[str, Any]) -> list[tuple[str, float | None]]:
    """(stage, ms) of one run. NaN becomes NULL, which the NOT NULL constraint refuses: the run is rolled back."""
    return [(name, None if math.isnan(ms) else float(ms)) for name, ms in payload["timings"]["stages_ms"].items()]


def result_values(payload: Mapping[str, Any]) -> list[tuple[int, str, float, int]]:
    """(rank, uuid, score, first-stage rank) of each of the run's results."""
    return [(r["rank"], r["uuid"], r["score"], r["first_stage_rank"]) for r in payload["results"]]


def pack_payload(payload: Mapping[str, Any]) -> bytes:
    """zlib-compressed JSON: a 50-candidate run is ~56 KB as text, ~8 KB packed."""
    return zlib.compress(json.dumps(payload, default=str).encode(), 6)


def unpack_payload(value: bytes | str) -> dict[str, Any]:
    return json.loads(zlib.decompress(value) if isinstance(value, bytes) else value)


def run_from_dict(data: Mapping[str, Any]) -> RetrievalRun:
    """Rebuild a `RetrievalRun` from its `to_dict()` JSON (the inverse of `to_dict`)."""
    candidates = tuple(
        Candidate(
            uuid=c["uuid"],
            fact=c["fact"],
            relation=c["relation"],
            source_uuid=c["source_uuid"],
            target_uuid=c["target_uuid"],
            episodes=tuple(c["episodes"]),
            valid_at=c["valid_at"],
            invalid_at=c["invalid_at"],
            expired_at=c["expired_at"],
            fused_score=c["fused_score"],
            first_stage_rank=c["first_stage_rank"],
            method_ranks=dict(c["method_ranks"]),
        )
        for c in data["candidates"]
    )
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
        query=data["query"],
        group_id=data["group"],
        num_candidates=data["num_candidates"],
        top_k=data["top_k"],
        reranker=data["reranker"],
        reranker_model=data["reranker_model"],
        include_superseded=data["include_superseded"],
        first_stage=data.get("first_stage") or "exact",
        recipe=data.get("recipe") or LEGACY_RECIPE,
        software=dict(data.get("software") or {}),
        cold=bool(data.get("cold")),
        as_of=data["as_of"],
        candidates=candidates,
        reranked=reranked,
        results=results,
        timings=Timings(
            stages_ms=dict(t["stages_ms"]),
            rerank_tokens=t["rerank_tokens"],
            rerank_cost_usd=t["rerank_cost_usd"],
            over_budget=tuple(t["over_budget"]),
            rerank_searches=t.get("rerank_searches") or 0,
        ),
        rerank_used=data["rerank_used"],
        fallback_reason=data["fallback_reason"],
        created_at=data["created_at"],
    )


def run_label(summary: RunSummary) -> str:
    """How the dashboard names a stored run in its pickers:
    '#12 · 2026-11-02 10:04 UTC · local · N=50 · What was FY2025 revenue?'."""
    query = summary.query if len(summary.query) <= 60 else summary.query[:59] + "…"
    return f"#{summary.id} · {stamp(summary.created_at)} UTC · {summary.reranker} · N={summary.candidates} · {query}"
