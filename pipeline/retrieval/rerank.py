"""Reranking one pool of first-stage candidates: the reranker step of `rank()`.

The reranker sees every candidate of the pool. A re-scorer that uses stored vectors gets the facts'
stored embeddings (search results carry none, so one indexed query loads them); if any is missing it embeds
the facts itself. Ties keep first-stage order. Scores a `ScoreCache` already holds are not asked for again: a
reranker whose score of a fact ignores the other candidates (a cross-encoder) is sent only the facts it has not
scored; one whose scores depend on the whole pool is sent the pool or nothing. A reranker failure never fails
the run: the first-stage order is kept and the result says why (`fallback`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge

from pipeline.graph.dialects.registry import for_driver
from pipeline.rerankers import LabReranker, RerankerFailed, RerankOutcome, searches_for, traits
from pipeline.retrieval.first_stage import MethodLists
from pipeline.retrieval.held_facts import HeldDeal
from pipeline.retrieval.hooks import RankHooks, ScoreCall
from pipeline.retrieval.records import CandidatePool, RankedCandidate
from pipeline.timing import StageTimer


async def stored_vectors(
    driver: GraphDriver, uuids: Sequence[str], held: HeldDeal | None = None
) -> list[Sequence[float]] | None:
    """The facts' stored embeddings in `uuids` order, or None when one is missing: those of `held` facts from
    memory, the others in one round trip, an index lookup per fact (graphiti's `get_embeddings_for_edges` scans
    every fact of the graph, and needs the edges read first when only uuids are at hand)."""
    stored: dict[str, Sequence[float]] = {}
    if held is not None:
        stored = {u: v for u in uuids if (v := held.vector(u)) is not None}
    missing = [u for u in dict.fromkeys(uuids) if u not in stored]
    if missing:
        stored |= await for_driver(driver).fact_vectors(driver, missing)
    if not all(u in stored for u in uuids):
        return None
    return [stored[u] for u in uuids]


async def score_pool(
    driver: GraphDriver,
    ranker: LabReranker,
    query: str,
    uuids: Sequence[str],
    facts: Sequence[str],
    held: HeldDeal | None = None,
) -> RerankOutcome:
    """One score per fact, in pool order; raises RerankerFailed (the caller keeps first-stage order)."""
    vectors = await stored_vectors(driver, uuids, held) if ranker.uses_vectors else None
    return await ranker.score(query, list(facts), vectors)


def rank_order(scores: Sequence[float]) -> list[int]:
    """Indices, best first; ties keep first-stage order."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def normalise(scores: Sequence[float]) -> list[float]:
    """Min-max to [0, 1]; all equal -> all 1."""
    low, high = min(scores), max(scores)
    return [1.0 if high == low else (s - low) / (high - low) for s in scores]


class QueryVectors:
    """The stored vectors of the pools one query searched just now, looked up once for all of them: one lookup for
    the union (what `score_pool` loads per pool) replaces one per pool, and vectors read before (MMR's fusion, an
    earlier query of a sweep) are not read again (`MethodLists.vectors`)."""

    def __init__(self, lists: MethodLists, edges: dict[str, EntityEdge], hooks: RankHooks) -> None:
        self.lists, self.edges, self.hooks = lists, edges, hooks
        self.loaded: dict[str, np.ndarray] | None = None
        self.ms = 0.0  # the load's time, counted in each pool's rerank latency (a lone run pays one load)

    async def of(self, uuids: Sequence[str]) -> list[np.ndarray] | None:
        """The pool's vectors in `uuids` order, or None when one is missing (as `stored_vectors` does)."""
        if self.loaded is None:
            with self.hooks.phases.time("vectors"):
                self.loaded, self.ms = await self.lists.vectors(list(self.edges))
        if not all(u in self.loaded for u in uuids):
            return None
        return [self.loaded[u] for u in uuids]


@dataclass(frozen=True)
class Reranked:
    reranked: tuple[RankedCandidate, ...]
    scores: list[float] | None  # None: no reranker, or it failed (then `fallback` says why)
    tokens: float = 0.0  # billed tokens; a cached score brings its share of its call's
    searches: int = 0
    fallback: str | None = None
    model: str = ""
    ms: float | None = None  # the rerank stage (rebuilt from the shares of cached scores); None: no reranker ran


async def rerank_pool(
    driver: GraphDriver,
    ranker: LabReranker | None,
    model: str,
    query: str,
    pool: CandidatePool,
    hooks: RankHooks,
    shared: QueryVectors | None,
    held: HeldDeal | None = None,
) -> Reranked:
    """The pool scored by `ranker` and ordered; first-stage order when there is no reranker or it fails.
    `shared`: the query's vectors, for a pool searched just now; `held`: the deal's facts held in memory."""
    candidates = pool.candidates
    first_order = tuple(RankedCandidate(c, c.first_stage_rank, None, None) for c in candidates)
    if ranker is None or not candidates:
        return Reranked(first_order, None)
    cache = hooks.scores
    failed = cache.failure(ranker.name, model, query, pool.uuids) if cache is not None else None
    if failed is not None:
        return Reranked(first_order, None, fallback=failed[0], model=model, ms=failed[1])
    hooks.checkpoint()
    timer = StageTimer()
    try:
        scores, ms, tokens, searches = await _scores(driver, ranker, model, query, pool, hooks, shared, held, timer)
    except RerankerFailed as exc:
        ms = timer.ms.get("rerank", 0.0)
        if cache is not None:
            cache.put_failure(ranker.name, model, query, pool.uuids, str(exc), ms)
        return Reranked(first_order, None, fallback=str(exc), model=model, ms=ms)
    norm = normalise(scores)
    reranked = tuple(
        RankedCandidate(candidates[i], rank, scores[i], norm[i]) for rank, i in enumerate(rank_order(scores), start=1)
    )
    return Reranked(reranked, scores, tokens, searches, None, model, ms)


async def _scores(
    driver: GraphDriver,
    ranker: LabReranker,
    model: str,
    query: str,
    pool: CandidatePool,
    hooks: RankHooks,
    shared: QueryVectors | None,
    held: HeldDeal | None,
    timer: StageTimer,
) -> tuple[list[float], float, float, int]:
    """(scores, rerank ms, tokens, billed searches) for the pool, the cached part from `hooks.scores`."""
    uuids, facts, cache, phases = pool.uuids, pool.facts, hooks.scores, hooks.phases
    with phases.time("cache_read"):
        hits = cache.lookup(ranker.name, model, query, uuids, facts) if cache is not None else {}
    per_search = traits(ranker.name).per_search
    if len(hits) == len(set(uuids)):
        rows = [hits[u] for u in uuids]
        searches = searches_for(len(uuids)) if per_search else 0
        return [r[0] for r in rows], sum(r[1] for r in rows), sum(r[2] for r in rows), searches
    # a cross-encoder is sent only the facts it has not scored; a pool-dependent re-scorer the whole pool
    send = [i for i, u in enumerate(uuids) if u not in hits] if traits(ranker.name).pool_independent else None
    part_uuids = uuids if send is None else tuple(uuids[i] for i in send)
    part_facts = facts if send is None else tuple(facts[i] for i in send)
    if shared is not None and ranker.uses_vectors and send is None:
        stored = await shared.of(part_uuids)  # score_pool's two steps, the query's vectors loaded once
        with phases.time("rerank"), timer.stage("rerank"):
            outcome = await ranker.score(query, list(part_facts), stored)
        timer.ms["rerank"] += shared.ms
    else:
        with phases.time("rerank"), timer.stage("rerank"):
            outcome = await score_pool(driver, ranker, query, part_uuids, part_facts, held)
    ms = timer.ms["rerank"]
    if cache is not None:
        with phases.time("cache_write"):
            cache.put(ScoreCall(ranker.name, model, query, part_uuids, part_facts, outcome.scores, ms, outcome.tokens))
    if send is None:
        return list(outcome.scores), ms, float(outcome.tokens), outcome.searches
    fresh = dict(zip(part_uuids, outcome.scores, strict=True))
    scores = [fresh[u] if u in fresh else hits[u][0] for u in uuids]
    ms += sum(hits[u][1] for u in uuids if u not in fresh)
    tokens = outcome.tokens + sum(hits[u][2] for u in uuids if u not in fresh)
    return scores, ms, float(tokens), outcome.searches
