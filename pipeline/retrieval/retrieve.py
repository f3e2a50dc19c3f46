"""The one ranking path: `rank()` turns settings into runs (first stage -> rerank -> top k with citations, every
stage timed); `retrieve()` is one setting's run. Every page, the CLI, the sweep and the benchmarks rank through here.

The reranker sees all N candidates (graphiti's own cross-encoder path would see only 2 x limit of
RRF and collapse identical facts). A reranker failure never fails the run: the first-stage order
is kept and the run says why (`fallback_reason`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from graphiti_core.edges import EntityEdge

from pipeline.errors import InvalidInput
from pipeline.lab import Lab
from pipeline.rerankers import LabReranker, RerankerFailed, estimate_cost, make_reranker
from pipeline.retrieval.citations import best_snippet, citation_fields, fetch_episodes
from pipeline.retrieval.filters import temporal_filter
from pipeline.retrieval.first_stage import FirstStage, MethodLists, search_recipe
from pipeline.retrieval.recipes import DEFAULT_RECIPE, Recipe, preset
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
from pipeline.retrieval.setting import Setting
from pipeline.text import printable_line
from pipeline.timing import StageTimer
from pipeline.utc import as_utc, now_iso
from pipeline.vector_index.build import has_ready_index
from pipeline.vector_index.records import FirstStageName
from pipeline.vector_index.search import indexed_similarity_search

MAX_QUERY_CHARS = 2000
# (deal, reranker) pairs this process has ranked with: the first run of each pays the process's one-time costs
# (the embedding model's session, graph connections, compiled statements, the reranker's model and vectors) inside
# its timings, so it is marked cold and the Latency page keeps it apart from the steady state
_WARM: set[tuple[str, str]] = set()


def validate_query(query: str) -> str:
    """The cleaned query, or InvalidInput saying what to change."""
    if not isinstance(query, str):
        raise InvalidInput("The query must be text.")
    cleaned = printable_line(query)
    if not cleaned:
        raise InvalidInput("The query is empty: type a question or a few keywords.")
    if len(cleaned) > MAX_QUERY_CHARS:
        raise InvalidInput(f"The query is {len(cleaned):,} characters long; the limit is {MAX_QUERY_CHARS:,}.")
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
        method_ranks={m: method_ranks[m].get(edge.uuid) if m in method_ranks else None for m in METHODS},
    )


@dataclass(frozen=True)
class _Pool:
    first: FirstStage
    candidates: tuple[Candidate, ...]


async def rank(
    lab: Lab,
    query: str,
    group_id: str,
    settings: Sequence[Setting],
    include_superseded: bool = False,
    as_of: datetime | None = None,
    reranker_model: str | None = None,
) -> list[RetrievalRun]:
    """One run per setting, in order. The query is embedded once; each method's list is fetched once per depth and
    filter (`MethodLists`) and fused per recipe; each pool (recipe, N, first stage) is reranked once per reranker
    and cited once, as deep as the deepest k asked of it; each k is a cut. Every run is timed as if it ran alone."""
    query = validate_query(query)
    settings = [s.validate() for s in settings]
    names = dict.fromkeys(s.reranker for s in settings)
    rankers = {name: make_reranker(name, lab.settings, reranker_model) for name in names}
    await lab.deal(group_id)
    if any(s.first_stage == "vector_index" for s in settings) and not await has_ready_index(lab, group_id):
        raise InvalidInput(
            f"Deal {group_id!r} has no ready vector index: create it with "
            f"`python -m pipeline vector-index --group {group_id}`, or use exact search."
        )
    as_of = as_utc(as_of) if as_of is not None else None
    created_at = now_iso()
    driver = lab.backend.driver(group_id)
    timer = StageTimer()
    with timer.stage("embed_query"):
        vector = await lab.embedder.embed_query(query)
    search_filter = temporal_filter(include_superseded, as_of)
    lists: dict[str, MethodLists] = {}
    pools: dict[tuple[object, ...], _Pool] = {}
    reranked: dict[tuple[object, ...], tuple[_Reranked, dict[str, float]]] = {}
    cited: dict[tuple[object, ...], tuple[tuple[Result, ...], float]] = {}
    for s in settings:
        if s.first_stage not in lists:
            similar = None
            if s.first_stage == "vector_index":
                similar = partial(indexed_similarity_search, lab.backend, driver, group_id, vector, search_filter)
            lists[s.first_stage] = MethodLists(driver, query, vector, group_id, search_filter, similar)
        if s.pool not in pools:
            first = await search_recipe(lists[s.first_stage], s.recipe, s.candidates)
            candidates = tuple(
                _candidate(edge, score, i, first.method_ranks)
                for i, (edge, score) in enumerate(zip(first.edges, first.fused_scores, strict=True), start=1)
            )
            pools[s.pool] = _Pool(first, candidates)
        pool = pools[s.pool]
        key = (s.pool, s.reranker)
        if key not in reranked:
            step_timer = StageTimer()
            step = await _rerank(driver, rankers[s.reranker], query, pool.candidates, step_timer, pool.first.edges)
            reranked[key] = (step, step_timer.ms)
        if key not in cited:
            step = reranked[key][0]
            depth = max(o.top_k for o in settings if (o.pool, o.reranker) == key)
            started = time.perf_counter()
            results = await _cite(lab, group_id, step.reranked[:depth], created_at)
            cited[key] = (results, (time.perf_counter() - started) * 1000)
    runs = []
    for s in settings:
        pool = pools[s.pool]
        step, rerank_ms = reranked[(s.pool, s.reranker)]
        results, cite_ms = cited[(s.pool, s.reranker)]
        first_ms = pool.first.alone_ms
        ms = {"embed_query": timer.ms["embed_query"], **pool.first.stages_ms, "hybrid_search": first_ms, **rerank_ms}
        ms["citations"] = cite_ms
        ms["total"] = ms["embed_query"] + first_ms + rerank_ms.get("rerank", 0.0) + cite_ms
        runs.append(
            RetrievalRun(
                query=query,
                group_id=group_id,
                num_candidates=s.candidates,
                top_k=s.top_k,
                reranker=s.reranker,
                reranker_model=step.model,
                include_superseded=include_superseded,
                as_of=iso(as_of),
                candidates=pool.candidates,
                reranked=step.reranked,
                results=results[: s.top_k],
                timings=_timings(ms, step.tokens, step.model, lab, step.searches),
                rerank_used=step.scores is not None,
                fallback_reason=step.fallback,
                created_at=created_at,
                first_stage=s.first_stage,
                recipe=s.recipe.key,
                software=lab.software(),
                cold=(group_id, s.reranker) not in _WARM,
            )
        )
    _WARM.update((group_id, s.reranker) for s in settings)
    return runs


async def retrieve(
    lab: Lab,
    query: str,
    group_id: str,
    candidates: int = 50,
    top_k: int = 10,
    reranker: str = "none",
    include_superseded: bool = False,
    as_of: datetime | None = None,
    reranker_model: str | None = None,
    first_stage: FirstStageName = "exact",
    recipe: Recipe | None = None,
) -> RetrievalRun:
    """One setting's run (`rank` with one setting)."""
    chosen = Setting(recipe or preset(DEFAULT_RECIPE), candidates, reranker, top_k, first_stage)
    (run,) = await rank(lab, query, group_id, [chosen], include_superseded, as_of, reranker_model)
    return run


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
