"""One sweep's queries ranked through `rank()` with the sweep's hooks (the store's pool and score caches, the
cancel flag, the phase timer, the facts' shared vectors), each on one graph state, `concurrency` at a time.
The sweep itself (what is shared, cached and measured) is described in sweep.py."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from pipeline.audit.repo import last_audit_id
from pipeline.evaluation.cache import FirstStageCache, RerankCache, graph_fingerprint
from pipeline.evaluation.judgments import EvalQuery
from pipeline.evaluation.records import (
    CancelFlag,
    Progress,
    SweepCancelled,
    SweepSpec,
)
from pipeline.evaluation.sweep_scores import ranking_key
from pipeline.graph.backend import GraphBackend
from pipeline.journal import failpoint
from pipeline.rerankers import (
    LabReranker,
)
from pipeline.retrieval.first_stage import FactVectors
from pipeline.retrieval.held_facts import HeldDeal
from pipeline.retrieval.hooks import RankHooks, ScoreCall, ScoreRow
from pipeline.retrieval.records import CandidatePool
from pipeline.retrieval.retrieve import rank, validate_query
from pipeline.retrieval.setting import Setting
from pipeline.store.db import Store
from pipeline.timing import Phases

if TYPE_CHECKING:
    from pipeline.lab import Lab

PoolKey = tuple[str, int]  # (recipe key, depth N): one first-stage pool of a query
STATE_RETRIES = 3  # a query re-run on a graph that keeps changing this often is kept, its pools not cached
# queries in flight at once (see rank_all). 1: on this 2-core machine 2 in flight saved 5% on TAT-QA and nothing
# on the demo (server and Python each keep a core busy) while every latency read 1.7-2.3x higher; a remote server
# with cores to spare is where more pays (`python -m benchmarks sweep --concurrency 1,2,4` measures it)
CONCURRENT_QUERIES = 1
PAUSE_KIND = "sweep"  # TEST HOOK: `sweep:query_done:pause` holds a sweep after each query (journal/failpoint.py)


@dataclass
class Counts:
    retrieved: int = 0
    cached_pools: int = 0
    calls: int = 0
    cached_scores: int = 0


@dataclass
class Ranked:
    """One query's pools by (recipe, depth) (and which were retrieved just now) and, per (recipe, reranker, N):
    order, rerank ms, tokens, 1 if the reranker fell back."""

    pools: dict[PoolKey, CandidatePool] = field(default_factory=dict)
    retrieved: dict[PoolKey, bool] = field(default_factory=dict)
    outcomes: dict[tuple[str, str, int], tuple[list[int], float, float, int]] = field(default_factory=dict)


async def graph_state(backend: GraphBackend, store: Store, group_id: str) -> tuple[object, ...]:
    """A cheap stamp of the deal's graph, read between queries: its counts (a correction adds a fact, an undo
    removes one, a merge adds a record, a rebuild changes them) and its newest audit entry (any admin action).
    The full fingerprint is recomputed only when this changes."""
    counts = await backend.cypher.deal_counts(group_id)
    return (*sorted(counts.items()), last_audit_id(store, group_id))


async def _pools_cache(lab: Lab, spec: SweepSpec, filter_key: str) -> FirstStageCache:
    fingerprint = await graph_fingerprint(lab.backend, spec.group_id, lab.embedder.info.describe())
    return FirstStageCache(lab.store, spec.group_id, fingerprint, filter_key)


class _QueryPools:
    """One query's pool hook (`PoolCache`): pools read from the store's cache, and the pools searched now kept
    aside, written by the caller once the graph is known not to have changed meanwhile."""

    def __init__(self, cache: FirstStageCache, use_cache: bool, stats: Counts) -> None:
        self.cache, self.use_cache, self.stats = cache, use_cache, stats
        self.seen: dict[PoolKey, CandidatePool] = {}
        self.fresh: dict[PoolKey, CandidatePool] = {}

    def get(self, setting: Setting, query: str) -> CandidatePool | None:
        key = (setting.recipe.key, setting.candidates)
        pool = self.cache.get(*key, query) if self.use_cache else None
        if pool is not None:
            self.seen[key] = pool
            self.stats.cached_pools += 1
        return pool

    def put(self, setting: Setting, query: str, pool: CandidatePool) -> None:
        key = (setting.recipe.key, setting.candidates)
        self.seen[key] = self.fresh[key] = pool
        self.stats.retrieved += 1


class SweepScores(RerankCache):
    """The store's score cache, read only when the sweep may use it, always written, counting reranker calls and
    pools served whole from the cache."""

    def __init__(self, store: Store, use_cache: bool, stats: Counts) -> None:
        super().__init__(store)
        self.use_cache, self.stats = use_cache, stats

    def lookup(
        self, reranker: str, model: str, query: str, uuids: Sequence[str], facts: Sequence[str]
    ) -> dict[str, ScoreRow]:
        hits = super().lookup(reranker, model, query, uuids, facts) if self.use_cache else {}
        self.stats.cached_scores += len(hits) == len(set(uuids))
        return hits

    def put(self, call: ScoreCall) -> None:
        super().put(call)
        self.stats.calls += 1


@dataclass
class QueryRanker:
    """What every query of a sweep is ranked with: one setting per (recipe, reranker, N), deepest N first within a
    recipe (see the module docstring), handed to `rank()` with the sweep's hooks."""

    lab: Lab
    spec: SweepSpec
    settings: Sequence[Setting]
    rankers: dict[str, LabReranker | None]
    scores: SweepScores
    include_superseded: bool
    as_of: datetime | None
    stats: Counts
    phases: Phases
    cancel: CancelFlag | None = None
    vectors: FactVectors = field(default_factory=FactVectors)  # facts' stored vectors, shared by every query
    held: HeldDeal | None = None  # the deal's facts held in memory for every query (`hold`)

    async def hold(self) -> None:
        """Hold the deal's facts for the queries to come (read once; none when they do not fit the budget)."""
        with self.phases.time("hold_facts"):
            self.held = await self.lab.facts.load(self.spec.group_id)

    def check_cancel(self) -> None:
        """Called inside a query, between its searches and reranker calls: the query in flight stops there."""
        if self.cancel is not None and self.cancel.is_set():
            raise SweepCancelled("Sweep cancelled.")


async def _rank_query(r: QueryRanker, text: str, pools_cache: FirstStageCache) -> Ranked:
    """Every pool of one query (from the cache or retrieved) and every reranker's order of each, through `rank()`;
    nothing is written to the pool cache here: the caller does, once the graph is known not to have changed
    meanwhile."""
    spec = r.spec
    pools = _QueryPools(pools_cache, spec.use_cache, r.stats)
    hooks = RankHooks(
        pools=pools,
        scores=r.scores,
        rankers=r.rankers,
        vectors=r.vectors,
        held=r.held,
        checkpoint=r.check_cancel,
        phases=r.phases,
        cite=False,
        deal_checked=True,
    )
    runs = await rank(r.lab, text, spec.group_id, r.settings, r.include_superseded, r.as_of, hooks=hooks)
    out = Ranked(pools.seen, dict.fromkeys(pools.fresh, True))
    for setting, run in zip(r.settings, runs, strict=True):
        order = [ranked.candidate.first_stage_rank - 1 for ranked in run.reranked]
        fallback = int(run.fallback_reason is not None)
        rerank_ms = 0.0 if fallback else run.timings.stages_ms.get("rerank", 0.0)
        out.outcomes[ranking_key(setting)] = (order, rerank_ms, float(run.timings.rerank_tokens), fallback)
    return out


class StateTracker:
    """The graph state the pool cache is keyed under, shared by the queries in flight: the first query to see the
    graph change moves it (and recomputes the fingerprint) once; every query that saw a change runs again."""

    def __init__(self, lab: Lab, spec: SweepSpec, filter_key: str, state: tuple[object, ...]) -> None:
        self.lab, self.spec, self.filter_key, self.state = lab, spec, filter_key, state
        self.cache: FirstStageCache | None = None
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        self.cache = await _pools_cache(self.lab, self.spec, self.filter_key)

    async def now(self) -> tuple[object, ...]:
        return await graph_state(self.lab.backend, self.lab.store, self.spec.group_id)

    async def moved_to(self, state: tuple[object, ...]) -> None:
        async with self._lock:
            if state != self.state:
                self.state = state
                self.cache = await _pools_cache(self.lab, self.spec, self.filter_key)


async def _rank_stable(r: QueryRanker, tracker: StateTracker, text: str) -> Ranked:
    """One query ranked on one graph state; its retrieved pools cached under that state's fingerprint."""
    text = validate_query(text)  # the text `rank()` reads the caches under, so it is the one written under too
    for _attempt in range(STATE_RETRIES):
        state, cache = tracker.state, tracker.cache
        assert cache is not None
        ranked = await _rank_query(r, text, cache)
        if not ranked.retrieved:
            # every pool came from the cache: nothing is written, so there is nothing to guard (the stamp is a
            # graph query, 130 ms a query on TAT-QA: most of a warm sweep's time)
            return ranked
        with r.phases.time("graph_state"):
            now = await tracker.now()
        if now == state:
            with r.phases.time("cache_write"):
                cache.put_many(text, {key: p for key, p in ranked.pools.items() if ranked.retrieved.get(key)})
            return ranked
        # the graph changed while this query ran: its pools may straddle two states, so none is cached;
        # the query runs again on the new state, under that state's fingerprint (and reads vectors afresh)
        r.vectors.clear()
        with r.phases.time("graph_state"):
            await tracker.moved_to(now)
        await r.hold()
    return ranked  # a graph that keeps changing: the last ranking is kept, its pools not cached


@dataclass
class Pass:
    """One pass over the queries: each query's ranking in query order (None: not finished), and the line saying
    why the pass stopped early (a cancel), or None when every query finished."""

    ranked: list[Ranked | None]
    stopped: str | None = None

    @property
    def finished(self) -> int:
        return sum(r is not None for r in self.ranked)


async def rank_all(
    r: QueryRanker,
    tracker: StateTracker,
    queries: Sequence[EvalQuery],
    progress: Progress | None,
    cancel: CancelFlag | None,
    concurrency: int,
) -> Pass:
    """Every query's ranking, in query order, `concurrency` queries at a time (queries are independent: the
    graph server runs queries on a thread pool, and one query's Python work overlaps another's server time).
    Progress is reported as each query finishes; the cancel flag is checked before a query starts and after
    each report. A cancel waits for the queries in flight (their cache rows are complete) and ends the pass with
    the queries finished so far."""
    total = len(queries)
    results: list[Ranked | None] = [None] * total
    waiting = iter(enumerate(queries))
    running: set[asyncio.Task[tuple[int, Ranked]]] = set()
    done = 0

    async def indexed(i: int, text: str) -> tuple[int, Ranked]:
        return i, await _rank_stable(r, tracker, text)

    def cancelled() -> bool:
        return cancel is not None and cancel.is_set()

    def keep(finished: set[asyncio.Task[tuple[int, Ranked]]]) -> bool:
        """Store the finished queries' rankings (in query order); whether one of them saw the cancel."""
        nonlocal done
        stopped = False
        for task in sorted(finished, key=lambda t: t.result()[0] if t.exception() is None else total):
            if isinstance(task.exception(), SweepCancelled):
                stopped = True
                continue
            i, ranked = task.result()  # any other failure is the sweep's
            results[i] = ranked
            done += 1
            if progress:
                progress(done, total, queries[i].text)
        return stopped

    stopped = False
    try:
        while not stopped:
            while len(running) < concurrency and not (stopped := cancelled()):
                nxt = next(waiting, None)
                if nxt is None:
                    break
                running.add(asyncio.create_task(indexed(nxt[0], nxt[1].text)))
            if not running:
                break
            finished, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
            stopped = keep(finished)
            await failpoint.paused(PAUSE_KIND, "query_done", r.lab.store.path.parent, released=cancelled)
            stopped = stopped or cancelled()
    finally:
        if running:  # the queries in flight see the cancel at their next step
            await asyncio.wait(running)
    if running:  # one that finished anyway is kept
        stopped = keep(running) or stopped
    if stopped and done < total:
        return Pass(results, f"Sweep cancelled after {done} of {total} queries")
    return Pass(results)
