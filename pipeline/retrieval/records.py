"""Immutable records a retrieval run returns. The UI and the CLI only display them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from pipeline.retrieval.recipes import LEGACY_RECIPE
from pipeline.utc import parse_time

METHODS = ("bm25", "cosine", "bfs")
BUDGETS_MS = {"hybrid_search": 500.0, "rerank": 300.0, "total": 3000.0}


@dataclass(frozen=True)
class Citation:
    episode_uuid: str
    document_id: str
    document_name: str
    page: int | None
    chunk: int | None
    channel: str  # document / qa_response / analyst_chat
    confidence: float
    source_description: str
    author: str
    snippet: str  # the part of the episode that best matches the fact
    episode_valid_at: str | None
    relevance_score: float
    retrieved_at: str

    @property
    def location(self) -> str:
        parts = [
            f"p. {self.page}" if self.page is not None else "",
            f"chunk {self.chunk}" if self.chunk else "",
        ]
        return ", ".join(p for p in parts if p)

    @property
    def label(self) -> str:
        """One line for a result card: 'cim.pdf, p. 5, chunk 1 · document · 0.85'."""
        where = ", ".join(p for p in (self.document_name, self.location) if p)
        return f"{where} · {self.channel.replace('_', ' ')} · confidence {self.confidence:.2f}"


@dataclass(frozen=True)
class Candidate:
    """A first-stage candidate: fused score, rank in each method (None = not found by it), temporal fields."""

    uuid: str
    fact: str
    relation: str
    source_uuid: str
    target_uuid: str
    episodes: tuple[str, ...]
    valid_at: str | None
    invalid_at: str | None
    expired_at: str | None
    fused_score: float
    first_stage_rank: int  # 1-based
    method_ranks: dict[str, int | None]

    @property
    def superseded(self) -> bool:
        return self.invalid_at is not None or self.expired_at is not None

    def superseded_on(self, as_of: str | None) -> bool:
        """Superseded on the run's as-of date (ISO; None: now): invalidated or expired on or before it. A fact
        superseded later was still valid then."""
        cutoff = parse_time(as_of)
        if cutoff is None:
            return self.superseded
        return any(when is not None and parse_time(when) <= cutoff for when in (self.invalid_at, self.expired_at))


@dataclass(frozen=True)
class CandidatePool:
    """One query's first-stage candidates for one (recipe, N, first stage) under one filter, fused order, with the
    times measured when they were retrieved: what a pool cache keeps (`pipeline/retrieval/hooks.py`)."""

    candidates: tuple[Candidate, ...]
    embed_ms: float  # the query's embedding
    stages_ms: dict[str, float]  # each method's fetch and the fusion
    first_ms: float  # the first stage as if it had run alone

    @cached_property  # a sweep reads them fact by fact
    def uuids(self) -> tuple[str, ...]:
        return tuple(c.uuid for c in self.candidates)

    @cached_property
    def facts(self) -> tuple[str, ...]:
        return tuple(c.fact for c in self.candidates)

    @property
    def ms(self) -> float:
        """Embedding and first stage: the part of a run's latency a cached pool stands for."""
        return self.embed_ms + self.first_ms


@dataclass(frozen=True)
class RankedCandidate:
    candidate: Candidate
    rank: int  # 1-based, after reranking
    rerank_score: float | None  # raw reranker score; None when no reranker ran
    rerank_score_norm: float | None  # min-max over this run's candidates, in [0, 1]

    @property
    def rank_change(self) -> int:
        """Positive: moved up by that many places."""
        return self.candidate.first_stage_rank - self.rank

    @property
    def score(self) -> float:
        return self.rerank_score if self.rerank_score is not None else self.candidate.fused_score


@dataclass(frozen=True)
class Result:
    ranked: RankedCandidate
    citations: tuple[Citation, ...]

    @property
    def uuid(self) -> str:
        return self.ranked.candidate.uuid


@dataclass(frozen=True)
class Timings:
    stages_ms: dict[str, float]  # embed_query, bm25, cosine, bfs, fusion, hybrid_search, rerank, citations, total
    rerank_tokens: int
    rerank_cost_usd: float | None
    over_budget: tuple[str, ...]
    rerank_searches: int = 0  # billed search units (Cohere bills per search, Voyage per token)


@dataclass(frozen=True)
class RetrievalRun:
    query: str
    group_id: str
    num_candidates: int
    top_k: int
    reranker: str
    reranker_model: str
    include_superseded: bool
    as_of: str | None
    candidates: tuple[Candidate, ...]
    reranked: tuple[RankedCandidate, ...]
    results: tuple[Result, ...]
    timings: Timings
    rerank_used: bool
    fallback_reason: str | None
    created_at: str
    first_stage: str = "exact"  # or "vector_index": where the cosine list came from (pipeline/retrieval/vector_index)
    recipe: str = LEGACY_RECIPE  # the first-stage recipe's key
    software: dict[str, str] = field(default_factory=dict)  # `Lab.software()`; empty on runs saved before it
    # the first run of its reranker on its deal in this process: its timings include loading models, opening
    # connections and compiling statements, once per process (`pipeline/retrieval/retrieve.py`)
    cold: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The CLI's JSON contract (keys: query, group, candidates, reranked, results, timings, ...)."""
        data = asdict(self)
        data["group"] = data.pop("group_id")
        for out, rc in zip(data["candidates"], self.candidates, strict=True):
            out["superseded"] = rc.superseded
        data["reranked"] = [
            {
                "uuid": r.candidate.uuid,
                "fact": r.candidate.fact,
                "rank": r.rank,
                "first_stage_rank": r.candidate.first_stage_rank,
                "rank_change": r.rank_change,
                "rerank_score": r.rerank_score,
                "rerank_score_norm": r.rerank_score_norm,
                "superseded": r.candidate.superseded,
            }
            for r in self.reranked
        ]
        data["results"] = [
            {
                "uuid": r.uuid,
                "fact": r.ranked.candidate.fact,
                "rank": r.ranked.rank,
                "score": r.ranked.score,
                "score_norm": r.ranked.rerank_score_norm,
                "fused_score": r.ranked.candidate.fused_score,
                "first_stage_rank": r.ranked.candidate.first_stage_rank,
                "superseded": r.ranked.candidate.superseded,
                "valid_at": r.ranked.candidate.valid_at,
                "invalid_at": r.ranked.candidate.invalid_at,
                "citation": asdict(r.citations[0]) if r.citations else None,
                "citations": [asdict(c) for c in r.citations],
            }
            for r in self.results
        ]
        return data


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None
