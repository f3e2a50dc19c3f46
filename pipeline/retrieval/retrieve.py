"""`retrieve()`: first stage -> rerank -> top k with citations, every stage timed.

The reranker sees all N candidates (graphiti's own cross-encoder path would see only 2 x limit of
RRF and collapse identical facts). A reranker failure never fails the run: the first-stage order
is kept and the run says why (`fallback_reason`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial
from typing import Any

from graphiti_core.edges import EntityEdge

from pipeline.errors import InvalidInput
from pipeline.lab import Lab
from pipeline.rerankers import LabReranker, RerankerFailed, estimate_cost, make_reranker
from pipeline.retrieval.citations import best_snippet, citation_fields, fetch_episodes
from pipeline.retrieval.filters import temporal_filter
from pipeline.retrieval.first_stage import hybrid_search
from pipeline.retrieval.records import (
    BUDGETS_MS,
    METHODS,
    Candidate,
    Citation,
    RankedCandidate,
    Result,
    RetrievalRun,
    Timings,
    iso,
)
from pipeline.retrieval.rerank import normalise, rank_order, score_pool
from pipeline.text import printable_line
from pipeline.timing import StageTimer
from pipeline.utc import as_utc, now_iso
from pipeline.vector_index.build import has_ready_index
from pipeline.vector_index.records import FIRST_STAGES, FirstStageName
from pipeline.vector_index.search import indexed_similarity_search

MAX_QUERY_CHARS = 2000
MAX_CANDIDATES = 200
MAX_TOP_K = 100


def validate_request(query: str, num_candidates: int, top_k: int) -> str:
    """The cleaned query, or InvalidInput saying what to change."""
    if not isinstance(query, str):
        raise InvalidInput("The query must be text.")
    cleaned = printable_line(query)
    if not cleaned:
        raise InvalidInput("The query is empty: type a question or a few keywords.")
    if len(cleaned) > MAX_QUERY_CHARS:
        raise InvalidInput(f"The query is {len(cleaned):,} characters long; the limit is {MAX_QUERY_CHARS:,}.")
    if not 1 <= num_candidates <= MAX_CANDIDATES:
        raise InvalidInput(f"Candidates (N) must be between 1 and {MAX_CANDIDATES}; got {num_candidates}.")
    if not 1 <= top_k <= MAX_TOP_K:
        raise InvalidInput(f"Top-k must be between 1 and {MAX_TOP_K}; got {top_k}.")
    if top_k > num_candidates:
        raise InvalidInput(f"Top-k ({top_k}) cannot exceed the number of candidates N ({num_candidates}).")
    return cleaned


def _candidate(edge: EntityEdge, fused: float, rank: int, method_ranks: dict[str, dict[str, int]]) -> Candidate:
    return Candidate(
        uuid=edge.uuid,
        fact=edge.fact,
        relation=edge.name,
        source_uuid=edge.source_node_uuid,
        target_uuid=edge.target_node_uuid,
        episodes=tuple(edge.episodes or ()),
        valid_at=iso(edge.valid_at),
        invalid_at=iso(edge.invalid_at),
        expired_at=iso(edge.expired_at),
        fused_score=fused,
        first_stage_rank=rank,
        method_ranks={m: method_ranks[m].get(edge.uuid) for m in METHODS},
    )


async def retrieve(
    lab: Lab,
    query: str,
    group_id: str,
    num_candidates: int = 50,
    top_k: int = 10,
    reranker: str = "none",
    include_superseded: bool = False,
    as_of: datetime | None = None,
    reranker_model: str | None = None,
    first_stage: FirstStageName = "exact",
) -> RetrievalRun:
    query = validate_request(query, num_candidates, top_k)
    ranker = make_reranker(reranker, lab.settings, reranker_model)
    await lab.deal(group_id)
    if first_stage not in FIRST_STAGES:
        raise InvalidInput(f"Unknown first stage {first_stage!r}; one of: {', '.join(FIRST_STAGES)}.")
    if first_stage == "vector_index" and not await has_ready_index(lab, group_id):
        raise InvalidInput(
            f"Deal {group_id!r} has no ready vector index: create it with "
            f"`python -m pipeline vector-index --group {group_id}`, or use exact search."
        )
    as_of = as_utc(as_of) if as_of is not None else None
    started = time.perf_counter()
    created_at = now_iso()
    timer = StageTimer()
    driver = lab.backend.driver(group_id)

    with timer.stage("embed_query"):
        vector = await lab.embedder.embed_query(query)
    search_filter = temporal_filter(include_superseded, as_of)
    similar = None
    if first_stage == "vector_index":
        similar = partial(indexed_similarity_search, lab.backend, driver, group_id, vector, search_filter)
    with timer.stage("hybrid_search"):
        first = await hybrid_search(driver, query, vector, group_id, num_candidates, search_filter, timer, similar)
    candidates = tuple(
        _candidate(edge, score, rank, first.method_ranks)
        for rank, (edge, score) in enumerate(zip(first.edges, first.fused_scores, strict=True), start=1)
    )

    step = await _rerank(driver, ranker, query, candidates, timer, first.edges)
    reranked, tokens, searches, fallback, model = step.reranked, step.tokens, step.searches, step.fallback, step.model
    scores = step.scores

    with timer.stage("citations"):
        results = await _cite(lab, group_id, reranked[:top_k], created_at)
    timer.ms["total"] = (time.perf_counter() - started) * 1000
    return RetrievalRun(
        query=query,
        group_id=group_id,
        num_candidates=num_candidates,
        top_k=top_k,
        reranker=reranker,
        reranker_model=model,
        include_superseded=include_superseded,
        as_of=iso(as_of),
        candidates=candidates,
        reranked=reranked,
        results=results,
        timings=_timings(timer.ms, tokens, model, lab, searches),
        rerank_used=scores is not None,
        fallback_reason=fallback,
        created_at=created_at,
        first_stage=first_stage,
    )


async def _cite(lab: Lab, group_id: str, top: Sequence[RankedCandidate], retrieved_at: str) -> tuple[Result, ...]:
    """The top results with a citation for each of their episodes (one query for all episodes)."""
    episodes = await fetch_episodes(lab.backend, group_id, (u for r in top for u in r.candidate.episodes))
    return tuple(
        Result(
            ranked=r,
            citations=tuple(
                Citation(
                    episode_uuid=u,
                    snippet=best_snippet(r.candidate.fact, episodes[u].get("content") or ""),
                    episode_valid_at=str(episodes[u].get("valid_at") or "") or None,
                    relevance_score=r.rerank_score_norm if r.rerank_score_norm is not None else r.score,
                    retrieved_at=retrieved_at,
                    **citation_fields(episodes[u]),
                )
                for u in r.candidate.episodes
                if u in episodes
            ),
        )
        for r in top
    )


async def without_reranking(lab: Lab, run: RetrievalRun) -> RetrievalRun:
    """The same run as if no reranker had been asked for: its candidates in first-stage order, the top k
    of that order cited, and its timings less the rerank stage. Compare shows both sides from one first
    stage, so the two columns differ only by the reranker (and the page does half the work)."""
    if run.reranker == "none":
        return run
    started = time.perf_counter()
    ranked = tuple(RankedCandidate(c, c.first_stage_rank, None, None) for c in run.candidates)
    results = await _cite(lab, run.group_id, ranked[: run.top_k], run.created_at)
    before = run.timings.stages_ms
    ms = {k: v for k, v in before.items() if k != "rerank"}
    ms["citations"] = (time.perf_counter() - started) * 1000
    ms["total"] = before["total"] - before.get("rerank", 0.0) - before["citations"] + ms["citations"]
    return replace(
        run,
        reranker="none",
        reranker_model="",
        reranked=ranked,
        results=results,
        timings=_timings(ms, 0, "", lab),
        rerank_used=False,
        fallback_reason=None,
    )


@dataclass(frozen=True)
class _Reranked:
    reranked: tuple[RankedCandidate, ...]
    scores: list[float] | None  # None: no reranker, or it failed (then `fallback` says why)
    tokens: int = 0
    searches: int = 0
    fallback: str | None = None
    model: str = ""


async def _rerank(
    driver: Any,
    ranker: LabReranker | None,
    query: str,
    candidates: Sequence[Candidate],
    timer: StageTimer,
    edges: Sequence[EntityEdge] | None = None,
) -> _Reranked:
    """Score the candidates with `ranker` (timed as the rerank stage) and order them; first-stage order when
    there is no reranker or it fails."""
    first_order = tuple(RankedCandidate(c, c.first_stage_rank, None, None) for c in candidates)
    if ranker is None or not candidates:
        return _Reranked(first_order, None)
    model = getattr(ranker, "model", "") or ranker.name
    with timer.stage("rerank"):
        try:
            uuids, facts = [c.uuid for c in candidates], [c.fact for c in candidates]
            outcome = await score_pool(driver, ranker, query, uuids, facts, edges)
        except RerankerFailed as exc:
            return _Reranked(first_order, None, fallback=str(exc), model=model)
    scores = list(outcome.scores)
    norm = normalise(scores)
    reranked = tuple(
        RankedCandidate(candidates[i], rank, scores[i], norm[i]) for rank, i in enumerate(rank_order(scores), start=1)
    )
    return _Reranked(reranked, scores, outcome.tokens, outcome.searches, None, outcome.model or model)


async def with_reranker(lab: Lab, run: RetrievalRun, reranker: str) -> RetrievalRun:
    """The same first stage reranked by `reranker` (run is taken in first-stage order): Compare and Scores
    rerank one pool with each side's reranker instead of running the first stage again per side."""
    base = await without_reranking(lab, run)
    ranker = make_reranker(reranker, lab.settings)
    if ranker is None or not base.candidates:
        return replace(base, reranker=reranker)
    started = time.perf_counter()
    timer = StageTimer()
    step = await _rerank(lab.backend.driver(run.group_id), ranker, run.query, base.candidates, timer)
    reranked, tokens, model = step.reranked, step.tokens, step.model
    with timer.stage("citations"):
        results = await _cite(lab, run.group_id, reranked[: run.top_k], run.created_at)
    before = base.timings.stages_ms
    ms = {k: v for k, v in before.items() if k not in ("rerank", "citations")} | timer.ms
    ms["total"] = before["total"] - before["citations"] + (time.perf_counter() - started) * 1000
    return replace(
        base,
        reranker=reranker,
        reranker_model=model,
        reranked=reranked,
        results=results,
        timings=_timings(ms, tokens, model, lab, step.searches),
        rerank_used=step.scores is not None,
        fallback_reason=step.fallback,
    )


def _timings(ms: dict[str, float], tokens: int, model: str, lab: Lab, searches: int = 0) -> Timings:
    cost = estimate_cost(tokens, model, lab.settings, searches) if tokens or searches else None
    over = tuple(
        f"{stage.replace('_', ' ')} took {ms[stage]:.0f} ms (budget {budget:.0f} ms)"
        for stage, budget in BUDGETS_MS.items()
        if ms.get(stage, 0.0) > budget
    )
    return Timings(
        stages_ms=dict(ms), rerank_tokens=tokens, rerank_cost_usd=cost, over_budget=over, rerank_searches=searches
    )
