"""The one ranking path: `rank()` turns settings into runs (first stage -> rerank -> top k with citations, every
stage timed); `retrieve()` is one setting's run. Every page, the CLI, the sweep, pools, the judge's queue and the
benchmarks rank through here; a caller ranking many queries plugs its caches, cancel and timers in (`hooks.py`).

The reranker sees all N candidates (graphiti's own cross-encoder path would see only 2 x limit of
RRF and collapse identical facts). A reranker failure never fails the run: the first-stage order
is kept and the run says why (`fallback_reason`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from graphiti_core.edges import EntityEdge

from pipeline.errors import InvalidInput
from pipeline.rerankers import estimate_cost, make_reranker
from pipeline.retrieval.citations import citation_fields, cited_snippet, fetch_episodes
from pipeline.retrieval.filters import temporal_filter
from pipeline.retrieval.first_stage import MethodLists, search_recipe
from pipeline.retrieval.held_facts import HeldDeal
from pipeline.retrieval.hooks import RankHooks
from pipeline.retrieval.recipes import DEFAULT_RECIPE, Recipe
from pipeline.retrieval.records import (
    BUDGETS_MS,
    METHODS,
    Candidate,
    CandidatePool,
    Citation,
    RankedCandidate,
    Result,
    RetrievalRun,
    Timings,
    iso,
)
from pipeline.retrieval.rerank import QueryVectors, Reranked, rerank_pool
from pipeline.retrieval.setting import Setting
from pipeline.retrieval.vector_index.build import has_ready_index
from pipeline.retrieval.vector_index.records import FirstStageName
from pipeline.retrieval.vector_index.search import indexed_similarity_search
from pipeline.text import printable_line
from pipeline.timing import StageTimer
from pipeline.utc import as_utc, now_iso

if TYPE_CHECKING:
    from pipeline.lab import Lab

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


class _QueryLists:
    """The query's method lists per first stage, made when a first stage first searches: the query is embedded
    then, once (a query whose pools all come from a cache is never embedded). Whether the deal's held facts are
    current (`held_facts.py`, one stamp read) is checked beside the embedding, inside its time."""

    def __init__(
        self,
        lab: Lab,
        driver: Any,
        query: str,
        group_id: str,
        search_filter: Any,
        hooks: RankHooks,
        held: asyncio.Future[HeldDeal | None],
    ) -> None:
        self.lab, self.driver, self.query, self.group_id = lab, driver, query, group_id
        self.search_filter, self.hooks, self.held = search_filter, hooks, held
        self.vector: list[float] | None = None
        self.embed_ms = 0.0
        self.lists: dict[str, MethodLists] = {}

    async def of(self, first_stage: FirstStageName) -> MethodLists:
        if first_stage not in self.lists:
            if self.vector is None:
                timer = StageTimer()
                with self.hooks.phases.time("embed"), timer.stage("embed_query"):
                    self.vector = await self.lab.embedder.embed_query(self.query)
                    await self.held
                self.embed_ms = timer.ms["embed_query"]
            similar, where = None, self.search_filter
            if first_stage == "vector_index":  # the index answers the cosine method; held facts give their vectors
                backend, vector = self.lab.backend, self.vector
                similar = partial(indexed_similarity_search, backend, self.driver, self.group_id, vector, where)
            self.lists[first_stage] = MethodLists(
                self.driver, self.query, self.vector, self.group_id, where, similar, self.hooks.vectors, await self.held
            )
        return self.lists[first_stage]


async def rank(
    lab: Lab,
    query: str,
    group_id: str,
    settings: Sequence[Setting],
    include_superseded: bool = False,
    as_of: datetime | None = None,
    reranker_model: str | None = None,
    hooks: RankHooks | None = None,
) -> list[RetrievalRun]:
    """One run per setting, in order. The query is embedded once; each method's list is fetched once per depth and
    filter (`MethodLists`) and fused per recipe; each pool (recipe, N, first stage) is searched once (or taken from
    `hooks.pools`), reranked once per reranker (scores from `hooks.scores` reused) and cited once, as deep as the
    deepest k asked of it; each k is a cut. Every run is timed as if it ran alone."""
    hooks = hooks or RankHooks()
    query = validate_query(query)
    settings = [s.validate() for s in settings]
    names = dict.fromkeys(s.reranker for s in settings)
    rankers = hooks.rankers or {name: make_reranker(name, lab.settings, reranker_model) for name in names}
    if not hooks.deal_checked:
        await lab.deal(group_id)
    if any(s.first_stage == "vector_index" for s in settings) and not await has_ready_index(lab, group_id):
        raise InvalidInput(
            f"Deal {group_id!r} has no ready vector index: create it with "
            f"`python -m pipeline vector-index --group {group_id}`, or use exact search."
        )
    as_of = as_utc(as_of) if as_of is not None else None
    created_at = now_iso()
    driver = lab.backend.driver(group_id)
    held = asyncio.ensure_future(_held_facts(lab, group_id, hooks))
    held.add_done_callback(lambda f: f.cancelled() or f.exception())  # a failure is raised where it is awaited
    lists = _QueryLists(lab, driver, query, group_id, temporal_filter(include_superseded, as_of), hooks, held)
    pools: dict[tuple[object, ...], CandidatePool] = {}
    searched: dict[str, EntityEdge] = {}  # the facts of the pools searched just now
    fresh: set[tuple[object, ...]] = set()  # the pools searched just now
    for s in settings:
        if s.pool not in pools:
            pools[s.pool], now = await _pool(s, query, lists, hooks, searched)
            if now:
                fresh.add(s.pool)
    shared = QueryVectors(next(iter(lists.lists.values())), searched, hooks) if searched else None
    reranked: dict[tuple[object, ...], Reranked] = {}
    for s in settings:
        key = (s.pool, s.reranker)
        if key not in reranked:
            ranker = rankers[s.reranker]
            model = (getattr(ranker, "model", "") or ranker.name) if ranker else ""
            vectors = shared if s.pool in fresh else None
            reranked[key] = await rerank_pool(driver, ranker, model, query, pools[s.pool], hooks, vectors, await held)
    cited: dict[tuple[object, ...], tuple[tuple[Result, ...], float]] = {}
    for s in settings:
        key = (s.pool, s.reranker)
        if key not in cited:
            depth = max(o.top_k for o in settings if (o.pool, o.reranker) == key)
            started = time.perf_counter()
            top = reranked[key].reranked[:depth]
            results = await _cite(lab, group_id, top, created_at) if hooks.cite else tuple(Result(r, ()) for r in top)
            cited[key] = (results, (time.perf_counter() - started) * 1000)
    when = _When(include_superseded, iso(as_of), created_at)
    runs = [
        _run(lab, query, group_id, s, when, pools[s.pool], reranked[(s.pool, s.reranker)], cited[(s.pool, s.reranker)])
        for s in settings
    ]
    _WARM.update((group_id, s.reranker) for s in settings)
    return runs


async def _held_facts(lab: Lab, group_id: str, hooks: RankHooks) -> HeldDeal | None:
    """The deal's facts held in memory for this ranking: the caller's (a sweep's), else the process's if current;
    a long-lived caller starts holding them for the queries to come."""
    if hooks.held is not None:
        return hooks.held
    held = await lab.facts.fresh(group_id)
    if held is None and hooks.hold:
        lab.facts.prefetch(group_id)
    return held


async def _pool(
    s: Setting, query: str, lists: _QueryLists, hooks: RankHooks, searched: dict[str, EntityEdge]
) -> tuple[CandidatePool, bool]:
    """The setting's pool, from `hooks.pools` or searched (and handed to it); whether it was searched now."""
    if hooks.pools is not None:
        with hooks.phases.time("cache_read"):
            cached = hooks.pools.get(s, query)
        if cached is not None:
            return cached, False
    hooks.checkpoint()
    method_lists = await lists.of(s.first_stage)
    with hooks.phases.time("first_stage"):
        first = await search_recipe(method_lists, s.recipe, s.candidates)
    if hooks.trace is not None:
        await hooks.trace(s, first, method_lists)
    candidates = tuple(
        _candidate(edge, score, i, first.method_ranks)
        for i, (edge, score) in enumerate(zip(first.edges, first.fused_scores, strict=True), start=1)
    )
    pool = CandidatePool(candidates, lists.embed_ms, first.stages_ms, first.alone_ms)
    searched.update((e.uuid, e) for e in first.edges)
    if hooks.pools is not None:
        with hooks.phases.time("cache_write"):
            hooks.pools.put(s, query, pool)
    return pool, True


@dataclass(frozen=True)
class _When:
    include_superseded: bool
    as_of: str | None
    created_at: str


def _run(
    lab: Lab,
    query: str,
    group_id: str,
    s: Setting,
    when: _When,
    pool: CandidatePool,
    step: Reranked,
    cited: tuple[tuple[Result, ...], float],
) -> RetrievalRun:
    results, cite_ms = cited
    ms = {"embed_query": pool.embed_ms, **pool.stages_ms, "hybrid_search": pool.first_ms}
    if step.ms is not None:
        ms["rerank"] = step.ms
    ms["citations"] = cite_ms
    ms["total"] = ms["embed_query"] + pool.first_ms + ms.get("rerank", 0.0) + cite_ms
    return RetrievalRun(
        query=query,
        group_id=group_id,
        num_candidates=s.candidates,
        top_k=s.top_k,
        reranker=s.reranker,
        reranker_model=step.model,
        include_superseded=when.include_superseded,
        as_of=when.as_of,
        candidates=pool.candidates,
        reranked=step.reranked,
        results=results[: s.top_k],
        timings=_timings(ms, round(step.tokens), step.model, lab, step.searches),
        rerank_used=step.scores is not None,
        fallback_reason=step.fallback,
        created_at=when.created_at,
        first_stage=s.first_stage,
        recipe=s.recipe.key,
        software=lab.software(),
        cold=(group_id, s.reranker) not in _WARM,
    )


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
    chosen = Setting(recipe or Recipe.preset(DEFAULT_RECIPE), candidates, reranker, top_k, first_stage)
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
                    snippet=cited_snippet(r.candidate.fact, episodes[u].get("content") or ""),
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
