"""Parameter sweeps: every (candidates N, top-k, reranker) setting over a labelled query set.

What is computed once and reused:

- each query is embedded once;
- the first stage runs once per query and depth N. A prefix of a deeper list is NOT the shallower
  list (graphiti asks each method for 2 x N before RRF, and BFS starts from those hits), which
  `tests/integration/test_sweep.py` checks on the demo deal, so each N is retrieved on its own;
  deepest first, so a cross-encoder has scored every fact of the shallower pools already;
- each reranker scores each (query, N) pool once; every k cuts that one ranking;
- the stored vectors a re-scorer or MMR needs are read once per fact for the whole sweep (`FactVectors`: queries
  share many facts, and reading a vector costs far more than finding it), for the union of a query's retrieved
  pools in one indexed lookup (`fact_vectors`, as `score_pool` loads them per pool); what the re-scorer sees is
  what `score_pool` would load for each pool;
- first-stage pools and reranker scores are cached in the store (`cache.py`), so a repeated sweep on
  an unchanged graph retrieves and reranks nothing (and calls Voyage for nothing). A pool is cached under
  the graph state it was computed on: a stamp of the graph (`graph_state`) is read after each query that retrieved,
  and when an admin action or a loader changed the deal meanwhile, that query's pools are dropped and it
  runs again under the new state's fingerprint (so a correction landing mid-sweep never poisons the cache).

Metrics, per query and setting: `ndcg@10`, `recall@10`, `mrr@10` on the top 10 of the reranked list
of N (the same for every k: k does not change the order), and `ndcg@k`, `recall@k`, `precision@k`,
`hit@k` on the top k that the setting hands on, and `tokens@k`, the size of that top k. Latency per query =
embedding + first stage at N + reranking (citations excluded: they do not depend on the setting), as measured when
first computed.

Time: `spec.as_of` retrieves the facts valid on that date (graphiti's date filters, as `retrieve(as_of=)`).
`spec.stale_rate` ranks every query a second time without the superseded filter (pools cached as an
include-superseded sweep caches them) and adds `stale@k`: the share of each top k that would be facts superseded
(invalidated or expired) on or before the as-of date, or now: what the filter keeps out on this deal.

Queries are independent, so `run_sweep(..., concurrency=n)` runs n of them at once (the graph server runs
queries on a thread pool, and one query's Python work can overlap another's server time); the default,
`CONCURRENT_QUERIES`, is 1 (see there). Results are folded in query order, so they are identical whatever
order queries finish in (a test compares a concurrent sweep with one query at a time, and with `retrieve()`
per setting). With more than one in flight, latencies are measured beside the other queries and read higher.

Progress goes to a callback after each query; cancellation is a flag (anything with `is_set()`,
e.g. `threading.Event`, or a job's row in SQLite: `jobs/runner.py`) checked before a query starts, after each
one finishes, and inside each query before every first-stage search and every reranker call, so a cancel lands
within the query in flight (64 s at N=150/200 when it waited for the query to end). A cancelled sweep keeps what
it finished: it raises `SweepCancelled` carrying the sweep over the queries that finished (`partial`, marked so:
`SweepResult.partial`), which the job saves as a partial experiment; nothing when no query finished.
Cached pools and scores computed before the cancel stay cached (each is a complete, correct row).

The result carries its run's fingerprint (`fingerprint.py`): the graph state it started on, the version of
its judgments and its settings.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np
from graphiti_core.edges import EntityEdge

from pipeline.audit.repo import last_audit_id
from pipeline.errors import InvalidInput
from pipeline.evaluation import metrics as m
from pipeline.evaluation.cache import FirstStageCache, Pool, RerankCache, graph_fingerprint
from pipeline.evaluation.fingerprint import run_fingerprint
from pipeline.evaluation.judgments import EvalQuery, EvalSet, load_eval_set
from pipeline.evaluation.manifest import run_manifest
from pipeline.evaluation.phases import Phases
from pipeline.evaluation.records import (
    AT_K,
    BASELINE,
    CONDENSED,
    CONDENSED_NAMES,
    FIXED,
    JUDGED,
    METRIC_NAMES,
    SIGNIFICANCE_METRIC,
    STALE,
    TOKENS,
    CancelFlag,
    Progress,
    QueryRow,
    SettingResult,
    SweepCancelled,
    SweepResult,
    SweepSpec,
    SweepStats,
)
from pipeline.evaluation.significance import paired_test_cached
from pipeline.graph.backend import GraphBackend
from pipeline.lab import Lab
from pipeline.rerankers import (
    LabReranker,
    RerankerFailed,
    estimate_cost,
    has_key,
    make_reranker,
    reranker_choices,
    searches_for,
    traits,
)
from pipeline.retrieval.filters import temporal_filter
from pipeline.retrieval.first_stage import FactVectors, MethodLists, search_recipe
from pipeline.retrieval.recipes import Recipe
from pipeline.retrieval.rerank import rank_order, score_pool
from pipeline.retrieval.setting import Setting
from pipeline.store.db import Store
from pipeline.temporal.records import FactRow
from pipeline.temporal.timeline import load_facts
from pipeline.timing import StageTimer
from pipeline.utc import as_utc, now_iso, utc_now


@dataclass
class _Acc:
    """Per (recipe, reranker, N): rankings and latencies of every query, filled as the sweep goes."""

    rankings: dict[str, list[str]] = field(default_factory=dict)
    latency: dict[str, float] = field(default_factory=dict)
    tokens: float = 0.0
    searches: int = 0  # for a reranker billed per search: one call per query and pool, as if the setting ran alone
    fallbacks: int = 0
    model: str = ""


PoolKey = tuple[str, int]  # (recipe key, depth N): one first-stage pool of a query
STATE_RETRIES = 3  # a query re-run on a graph that keeps changing this often is kept, its pools not cached
# queries in flight at once (see _rank_all). 1: on this 2-core machine 2 in flight saved 5% on TAT-QA and nothing
# on the demo (server and Python each keep a core busy) while every latency read 1.7-2.3x higher; a remote server
# with cores to spare is where more pays (`python -m benchmarks sweep --concurrency 1,2,4` measures it)
CONCURRENT_QUERIES = 1


@dataclass
class _Counts:
    retrieved: int = 0
    cached_pools: int = 0
    calls: int = 0
    cached_scores: int = 0


@dataclass
class _Ranked:
    """One query's pools by (recipe, depth) (and which were retrieved just now) and, per (recipe, reranker, N):
    order, rerank ms, tokens, 1 if the reranker fell back."""

    pools: dict[PoolKey, Pool] = field(default_factory=dict)
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


@dataclass
class _QueryRanker:
    """What every query of a sweep is ranked with."""

    lab: Lab
    spec: SweepSpec
    pool_keys: Sequence[PoolKey]  # (recipe, depth), deepest first within a recipe
    recipes: dict[str, Recipe]
    needed: set[tuple[str, str, int]]  # (recipe, reranker, N)
    rerankers: Sequence[str]
    rankers: dict[str, LabReranker | None]
    models: dict[str, str]
    scores_cache: RerankCache
    driver: Any
    search_filter: Any
    stats: _Counts
    phases: Phases
    cancel: CancelFlag | None = None
    vectors: FactVectors = field(default_factory=FactVectors)  # facts' stored vectors, shared by every query

    def check_cancel(self) -> None:
        """Called inside a query, between its searches and reranker calls: the query in flight stops there."""
        if self.cancel is not None and self.cancel.is_set():
            raise SweepCancelled("Sweep cancelled.")


async def _rank_query(r: _QueryRanker, text: str, pools_cache: FirstStageCache) -> _Ranked:
    """Every pool of one query (from the cache or retrieved) and every reranker's order of each; nothing is
    written to the pool cache here: the caller does, once the graph is known not to have changed meanwhile."""
    lab, spec, driver, stats, phases = r.lab, r.spec, r.driver, r.stats, r.phases
    pool_keys, needed, rerankers, rankers, models = r.pool_keys, r.needed, r.rerankers, r.rankers, r.models
    search_filter, scores_cache = r.search_filter, r.scores_cache
    out = _Ranked()
    lists: MethodLists | None = None  # the query's method lists, once it is embedded
    embed_ms = 0.0
    retrieved: dict[PoolKey, tuple[EntityEdge, ...]] = {}  # the edges of the pools retrieved just now
    for pool_key in pool_keys:
        recipe, depth = pool_key
        with phases.time("cache_read"):
            pool = pools_cache.get(recipe, depth, text) if spec.use_cache else None
        if pool is None:
            r.check_cancel()
            if lists is None:
                timer = StageTimer()
                with phases.time("embed"), timer.stage("embed"):
                    vector = await lab.embedder.embed_query(text)
                embed_ms = timer.ms["embed"]
                lists = MethodLists(driver, text, vector, spec.group_id, search_filter, known=r.vectors)
            with phases.time("first_stage"):
                first = await search_recipe(lists, r.recipes[recipe], depth)
            retrieved[pool_key] = first.edges
            uuids, facts = tuple(e.uuid for e in first.edges), tuple(e.fact for e in first.edges)
            pool = Pool(uuids, facts, embed_ms + first.alone_ms)
            out.retrieved[pool_key] = True
            stats.retrieved += 1
        else:
            stats.cached_pools += 1
        out.pools[pool_key] = pool
    union = {e.uuid: e for edges in retrieved.values() for e in edges}
    vectors = _QueryVectors(lists, union, phases) if union and lists is not None else None
    for pool_key in pool_keys:
        recipe, depth = pool_key
        pool, edges = out.pools[pool_key], retrieved.get(pool_key)
        for name in [r for r in rerankers if (recipe, r, depth) in needed]:
            ranker = rankers[name]
            order, rerank_ms, tokens, fallback = list(range(len(pool.uuids))), 0.0, 0.0, 0
            if ranker is not None and pool.uuids:
                r.check_cancel()
                outcome = await _scores(
                    driver,
                    ranker,
                    models[name],
                    text,
                    pool,
                    edges,
                    scores_cache,
                    spec,
                    phases,
                    vectors if edges is not None else None,
                )
                if outcome is None:
                    fallback = 1
                else:
                    scores, rerank_ms, tokens, was_cached = outcome
                    order = rank_order(scores)
                    stats.cached_scores += was_cached
                    stats.calls += not was_cached
            out.outcomes[(recipe, name, depth)] = (order, rerank_ms, tokens, fallback)
    return out


class _StateTracker:
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


async def _rank_stable(r: _QueryRanker, tracker: _StateTracker, text: str) -> _Ranked:
    """One query ranked on one graph state; its retrieved pools cached under that state's fingerprint."""
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
    return ranked  # a graph that keeps changing: the last ranking is kept, its pools not cached


@dataclass
class _Pass:
    """One pass over the queries: each query's ranking in query order (None: not finished), and the line saying
    why the pass stopped early (a cancel), or None when every query finished."""

    ranked: list[_Ranked | None]
    stopped: str | None = None

    @property
    def finished(self) -> int:
        return sum(r is not None for r in self.ranked)


async def _rank_all(
    r: _QueryRanker,
    tracker: _StateTracker,
    queries: Sequence[EvalQuery],
    progress: Progress | None,
    cancel: CancelFlag | None,
    concurrency: int,
) -> _Pass:
    """Every query's ranking, in query order, `concurrency` queries at a time (queries are independent: the
    graph server runs queries on a thread pool, and one query's Python work overlaps another's server time).
    Progress is reported as each query finishes; the cancel flag is checked before a query starts and after
    each report. A cancel waits for the queries in flight (their cache rows are complete) and ends the pass with
    the queries finished so far."""
    total = len(queries)
    results: list[_Ranked | None] = [None] * total
    waiting = iter(enumerate(queries))
    running: set[asyncio.Task[tuple[int, _Ranked]]] = set()
    done = 0

    async def indexed(i: int, text: str) -> tuple[int, _Ranked]:
        return i, await _rank_stable(r, tracker, text)

    def cancelled() -> bool:
        return cancel is not None and cancel.is_set()

    def keep(finished: set[asyncio.Task[tuple[int, _Ranked]]]) -> bool:
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
            stopped = keep(finished) or cancelled()
    finally:
        if running:  # the queries in flight see the cancel at their next step
            await asyncio.wait(running)
    if running:  # one that finished anyway is kept
        stopped = keep(running) or stopped
    if stopped and done < total:
        return _Pass(results, f"Sweep cancelled after {done} of {total} queries")
    return _Pass(results)


class _QueryVectors:
    """The stored vectors of one query's retrieved pools, looked up once for all its depths: one lookup for the
    union of the pools (what `score_pool` loads per pool) replaces one per pool, and vectors read before (MMR's
    fusion, an earlier query) are not read again (`MethodLists.vectors`)."""

    def __init__(self, lists: MethodLists, edges: dict[str, EntityEdge], phases: Phases) -> None:
        self.lists, self.edges, self.phases = lists, edges, phases
        self.loaded: dict[str, np.ndarray] | None = None
        self.ms = 0.0  # the load's time, counted in each pool's rerank latency (a lone run pays one load)

    async def of(self, uuids: Sequence[str]) -> list[np.ndarray] | None:
        """The pool's vectors in `uuids` order, or None when one is missing (as `stored_vectors` does)."""
        if self.loaded is None:
            with self.phases.time("vectors"):
                self.loaded, self.ms = await self.lists.vectors(list(self.edges))
        if not all(u in self.loaded for u in uuids):
            return None
        return [self.loaded[u] for u in uuids]


def check_available(lab: Lab, rerankers: Sequence[str]) -> None:
    """Refuse a reranker that cannot run at all (no API key); a failing one is tried, and its failures are
    counted per setting (`fallbacks`: first-stage order kept for that query)."""
    choices = {c.name: c for c in reranker_choices(lab.settings)}
    for name in rerankers:
        if not has_key(name, lab.settings):
            raise InvalidInput(f"Reranker {name!r} cannot run here: {choices[name].note}.")


async def run_sweep(
    lab: Lab,
    spec: SweepSpec,
    progress: Progress | None = None,
    cancel: CancelFlag | None = None,
    eval_set: EvalSet | None = None,
    concurrency: int = CONCURRENT_QUERIES,
) -> SweepResult:
    """Run every setting of `spec` over the deal's judged queries; raises SweepCancelled if cancelled."""
    spec = spec.validate()
    check_available(lab, spec.rerankers)
    started = time.perf_counter()
    full = eval_set or await load_eval_set(lab, spec.group_id, spec.judgments, spec.trust_judge)
    chosen = full.select(spec.split, spec.limit_queries, spec.sample, spec.seed)
    if not chosen.queries:
        raise InvalidInput("No judged query to evaluate with these options.")
    needed = {_ranking(s) for s in (*spec.grid(), BASELINE)}  # (recipe, reranker, N) to rank
    recipes = {key: spec.recipe(key) for key in dict.fromkeys([*spec.recipes, BASELINE.recipe.key])}
    order = {key: i for i, key in enumerate(recipes)}
    # deepest first within a recipe (see the module docstring)
    pool_keys = sorted({(recipe, n) for recipe, _, n in needed}, key=lambda p: (order[p[0]], -p[1]))
    rerankers = list(dict.fromkeys([BASELINE.reranker, *spec.rerankers]))
    rankers: dict[str, LabReranker | None] = {name: make_reranker(name, lab.settings) for name in rerankers}
    models = {name: (getattr(r, "model", "") or r.name) if r else "" for name, r in rankers.items()}
    keep = max(10, *spec.top_ks)

    driver = lab.backend.driver(spec.group_id)
    search_filter = temporal_filter(spec.include_superseded, spec.as_of_datetime())
    filter_key = f"as_of:{spec.as_of}" if spec.as_of else ("all" if spec.include_superseded else "current")
    phases = Phases()
    stats = _Counts()
    ranker = _QueryRanker(
        lab,
        spec,
        pool_keys,
        recipes,
        needed,
        rerankers,
        rankers,
        models,
        RerankCache(lab.store),
        driver,
        search_filter,
        stats,
        phases,
        cancel,
    )
    with phases.time("graph_state"):
        tracker = _StateTracker(lab, spec, filter_key, await graph_state(lab.backend, lab.store, spec.group_id))
        await tracker.start()
    assert tracker.cache is not None
    fingerprint = run_fingerprint(lab.store, spec, tracker.state, tracker.cache.key[1], full)
    used = {name: models[name] for name in spec.rerankers}
    fingerprint["manifest"] = run_manifest(spec, lab.software(), used, lab.settings.judge_model)

    total = len(chosen.queries)
    superseded: set[str] = set()
    if spec.stale_rate:
        with phases.time("stale"):
            superseded = await _superseded(lab, spec)
    # a second pass over the queries, unless nothing is superseded by then (every stale@k is 0 without it)
    unfiltered_pass = spec.stale_rate and not spec.include_superseded and bool(superseded)
    first_pass = _share(progress, 0, 2 if unfiltered_pass else 1)
    if first_pass:
        first_pass(0, total, f"{total} queries x {len(pool_keys)} pools x {len(rerankers)} rerankers")
    first = await _rank_all(ranker, tracker, chosen.queries, first_pass, cancel, max(1, concurrency))
    partial: dict[str, Any] = {}
    if first.stopped:
        if not first.finished:
            raise SweepCancelled(f"{first.stopped}; nothing to save.")
        # what finished is kept: the result is the sweep over those queries, marked partial
        partial = {"reason": "cancelled", "queries": first.finished, "of": total}
        kept = [(q, r) for q, r in zip(chosen.queries, first.ranked, strict=True) if r is not None]
        ids = {q.id for q, _ in kept}
        chosen = replace(
            chosen, queries=tuple(q for q, _ in kept), qrels={q: j for q, j in chosen.qrels.items() if q in ids}
        )
        ranked_by_query = [r for _, r in kept]
    else:
        ranked_by_query = [r for r in first.ranked if r is not None]

    # folded in query order, so the result is the same whatever order the queries finished in
    acc = {(recipe, r, n): _Acc(model=models[r]) for recipe, r, n in needed}
    facts: dict[str, str] = {}
    for query, ranked in zip(chosen.queries, ranked_by_query, strict=True):
        for (recipe, name, depth), outcome in ranked.outcomes.items():
            pool = ranked.pools[(recipe, depth)]
            slot = acc[(recipe, name, depth)]
            order, rerank_ms, tokens, fallback = outcome
            slot.fallbacks += fallback
            slot.tokens += tokens
            if traits(name).per_search and not fallback:
                slot.searches += searches_for(len(pool.uuids))
            slot.rankings[query.id] = [pool.uuids[i] for i in order]
            slot.latency[query.id] = pool.ms + rerank_ms
            for i in order[:keep]:
                facts[pool.uuids[i]] = pool.facts[i]

    stale: dict[tuple[str, str, int], dict[str, tuple[bool, ...]]] | None = None
    if spec.stale_rate and not partial:
        unfiltered: dict[tuple[str, str, int], dict[str, list[str]]] | None = {
            key: slot.rankings for key, slot in acc.items()
        }
        if unfiltered_pass:
            two = _share(progress, 1, 2)
            unfiltered = await _unfiltered_rankings(ranker, tracker.state, chosen.queries, two, cancel, concurrency)
        if unfiltered is None:  # the stale-fact pass was cancelled: every query's metrics, no stale@k
            partial = {"reason": "cancelled", "queries": total, "of": total, "missing": "stale@k"}
        else:
            stale = _stale_flags(superseded, unfiltered, keep)
    with phases.time("metrics"):
        settings, rows = _score(lab, spec, chosen, acc, facts, stale)
    judged = {u for j in chosen.qrels.values() for u in j}
    missing = judged - facts.keys()
    if missing:
        with phases.time("fact_texts"):
            facts.update(await _fact_texts(lab, spec.group_id, sorted(missing)))
    result = SweepResult(
        spec=spec,
        eval_set=chosen.summary(),
        created_at=now_iso(),
        settings=tuple(settings),
        rows=tuple(rows),
        queries={q.id: (q.text, q.type) for q in chosen.queries},
        qrels={q: dict(j) for q, j in chosen.qrels.items()},
        facts=facts,
        stats=SweepStats(
            len(chosen.queries),
            stats.retrieved,
            stats.cached_pools,
            stats.calls,
            stats.cached_scores,
            time.perf_counter() - started,
            phases.rounded(),
        ),
        fingerprint=fingerprint,
        partial=partial,
    )
    if partial:
        raise SweepCancelled(result.partial_text, partial=result)
    return result


async def _scores(
    driver: Any,
    ranker: LabReranker,
    model: str,
    query: str,
    pool: Pool,
    edges: Sequence[EntityEdge] | None,
    cache: RerankCache,
    spec: SweepSpec,
    phases: Phases,
    vectors: _QueryVectors | None = None,
) -> tuple[list[float], float, float, bool] | None:
    """(scores, rerank ms, tokens, from cache) for the pool, or None when the reranker failed."""
    with phases.time("cache_read"):
        hits = cache.lookup(ranker.name, model, query, pool) if spec.use_cache else {}
    if len(hits) == len(set(pool.uuids)):
        rows = [hits[u] for u in pool.uuids]
        return [r[0] for r in rows], sum(r[1] for r in rows), sum(r[2] for r in rows), True
    # a cross-encoder is sent only the facts it has not scored; a pool-dependent re-scorer the whole pool
    send = [i for i, u in enumerate(pool.uuids) if u not in hits] if traits(ranker.name).pool_independent else None
    part = pool if send is None else Pool(tuple(pool.uuids[i] for i in send), tuple(pool.facts[i] for i in send), 0)
    timer = StageTimer()
    shared = vectors if vectors is not None and ranker.uses_vectors and send is None else None
    try:
        if shared is not None:  # score_pool's two steps, with the query's vectors loaded once for every depth
            stored = await shared.of(part.uuids)
            with phases.time("rerank"), timer.stage("rerank"):
                outcome = await ranker.score(query, list(part.facts), stored)
            timer.ms["rerank"] += shared.ms
        else:
            with phases.time("rerank"), timer.stage("rerank"):
                outcome = await score_pool(
                    driver, ranker, query, part.uuids, part.facts, edges if send is None else None
                )
    except RerankerFailed:
        return None
    with phases.time("cache_write"):
        cache.put(ranker.name, model, query, part, outcome.scores, timer.ms["rerank"], outcome.tokens)
    if send is None:
        return list(outcome.scores), timer.ms["rerank"], float(outcome.tokens), False
    fresh = dict(zip(part.uuids, outcome.scores, strict=True))
    scores = [fresh[u] if u in fresh else hits[u][0] for u in pool.uuids]
    ms = timer.ms["rerank"] + sum(hits[u][1] for u in pool.uuids if u not in fresh)
    tokens = outcome.tokens + sum(hits[u][2] for u in pool.uuids if u not in fresh)
    return scores, ms, float(tokens), False


def _score(
    lab: Lab,
    spec: SweepSpec,
    chosen: EvalSet,
    acc: dict[tuple[str, str, int], _Acc],
    facts: dict[str, str] | None = None,
    stale: dict[tuple[str, str, int], dict[str, tuple[bool, ...]]] | None = None,
) -> tuple[list[SettingResult], list[QueryRow]]:
    """Per query and setting: the quality metrics, the tokens of the top k handed on, and (when measured) the
    share of the top k that would be superseded facts without the filter; per setting their means, latency,
    cost and the paired test of SIGNIFICANCE_METRIC against the baseline."""
    grid = spec.grid()
    wanted = [*grid, BASELINE] if BASELINE not in grid else grid
    types = {q.id: q.type for q in chosen.queries}
    names_at = {k: [f"{kind}@{k}" for kind in AT_K] for k in sorted({s.top_k for s in wanted})}
    all_names = [*FIXED, *(n for names in names_at.values() for n in names)]
    scored = {key: m.per_query(chosen.qrels, slot.rankings, all_names) for key, slot in acc.items()}
    judged = {q: set(j) for q, j in chosen.qrels.items()}
    condensed = {
        key: m.per_query(chosen.qrels, _condensed(slot.rankings, judged), all_names) for key, slot in acc.items()
    }
    keep = max(10, *spec.top_ks)
    tokens_of = _token_counts(facts or {}, acc, keep)
    names = [*METRIC_NAMES, *CONDENSED_NAMES, TOKENS, JUDGED, *([STALE] if stale is not None else [])]

    per_setting: dict[Setting, dict[str, dict[str, float]]] = {}
    rows: list[QueryRow] = []
    for setting in wanted:
        ranked, k = _ranking(setting), setting.top_k
        values = scored[ranked]
        per_query: dict[str, dict[str, float]] = {}
        for qid, row in values.items():
            ranking = acc[ranked].rankings[qid]
            short = condensed[ranked][qid]
            mine = {name: row[name] for name in FIXED}
            mine.update({f"{kind}@k": row[f"{kind}@{k}"] for kind in AT_K})
            mine.update({f"{name}{CONDENSED}": short[name] for name in FIXED})
            mine.update({f"{kind}@k{CONDENSED}": short[f"{kind}@{k}"] for kind in AT_K})
            mine[TOKENS] = float(sum(tokens_of.get(u, 0) for u in ranking[:k]))
            top = ranking[:k]
            # of the facts handed on, the share judged: an empty top k holds nothing unjudged
            mine[JUDGED] = sum(u in judged.get(qid, ()) for u in top) / len(top) if top else 1.0
            if stale is not None:
                flags = stale[ranked].get(qid, ())[:k]
                mine[STALE] = sum(flags) / len(flags) if flags else 0.0
            per_query[qid] = mine
            latency = acc[ranked].latency[qid]
            rows.append(QueryRow(setting, qid, mine, latency, tuple(ranking[:keep])))
        per_setting[setting] = per_query

    base = per_setting[BASELINE]
    order = sorted(base)
    results = []
    for setting in wanted:
        per_query = per_setting[setting]
        slot = acc[_ranking(setting)]
        latencies = list(slot.latency.values())
        by_type: dict[str, list[dict[str, float]]] = {}
        for qid, row in per_query.items():
            by_type.setdefault(types[qid], []).append(row)
        test = None
        if setting != BASELINE:  # the same scores give the same test (fixed seed): remembered by its scores
            values = [per_query[q][SIGNIFICANCE_METRIC] for q in order]
            test = paired_test_cached([base[q][SIGNIFICANCE_METRIC] for q in order], values)
        tokens, searches = round(slot.tokens), slot.searches
        # nothing billed: free, unless the reranker is priced (then its cost is unknown)
        if tokens or searches:
            cost = estimate_cost(tokens, slot.model, lab.settings, searches)
        else:
            cost = None if traits(setting.reranker).priced else 0.0
        results.append(
            SettingResult(
                setting=setting,
                reranker_model=slot.model,
                in_grid=setting in grid,
                metrics=m.mean(per_query.values(), names),
                by_type={t: m.mean(v, names) for t, v in sorted(by_type.items())},
                p50_ms=float(np.percentile(latencies, 50)),
                p95_ms=float(np.percentile(latencies, 95)),
                tokens=tokens,
                cost_usd=cost,
                fallbacks=slot.fallbacks,
                p_value=test.p_randomization if test else None,
                p_ttest=test.p_ttest if test else None,
            )
        )
    return results, rows


def _ranking(setting: Setting) -> tuple[str, str, int]:
    """(recipe key, reranker, N): the ranking a setting cuts its top k from, shared by every k."""
    return (setting.recipe.key, setting.reranker, setting.candidates)


def _condensed(rankings: dict[str, list[str]], judged: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each ranking with its unjudged facts left out, the rest in order."""
    return {q: [u for u in ranking if u in judged.get(q, ())] for q, ranking in rankings.items()}


def _token_counts(facts: dict[str, str], acc: dict[tuple[str, str, int], _Acc], keep: int) -> dict[str, int]:
    """Tokens of every fact in some setting's top `keep` (counted once per fact)."""
    uuids = sorted({u for slot in acc.values() for ranking in slot.rankings.values() for u in ranking[:keep]})
    uuids = [u for u in uuids if u in facts]
    return dict(zip(uuids, m.token_counts([facts[u] for u in uuids]), strict=True))


def _share(progress: Progress | None, part: int, parts: int) -> Progress | None:
    """Progress of one of `parts` passes over the queries, reported as a share of all of them."""
    if progress is None or parts == 1:
        return progress
    return lambda done, total, message: progress(part * total + done, parts * total, message)


async def _unfiltered_rankings(
    r: _QueryRanker,
    state: tuple[object, ...],
    queries: Sequence[EvalQuery],
    progress: Progress | None,
    cancel: CancelFlag | None,
    concurrency: int,
) -> dict[tuple[str, str, int], dict[str, list[str]]] | None:
    """Every query ranked again as the sweep ranked it, but with superseded facts left in (no date filter): what
    the superseded filter keeps out (None when cancelled). Pools are cached as an include-superseded sweep caches
    them."""
    unfiltered = replace(r, search_filter=temporal_filter(True, None), stats=_Counts())
    tracker = _StateTracker(r.lab, r.spec, "all", state)
    await tracker.start()
    second = await _rank_all(unfiltered, tracker, queries, progress, cancel, max(1, concurrency))
    if second.stopped:
        return None
    out: dict[tuple[str, str, int], dict[str, list[str]]] = {}
    for query, one in zip(queries, [x for x in second.ranked if x is not None], strict=True):
        for (recipe, name, depth), (order, *_rest) in one.outcomes.items():
            out.setdefault((recipe, name, depth), {})[query.id] = [one.pools[(recipe, depth)].uuids[i] for i in order]
    return out


async def _superseded(lab: Lab, spec: SweepSpec) -> set[str]:
    """The deal's facts superseded (invalidated or expired) on or before the sweep's as-of date, or now."""
    cutoff = spec.as_of_datetime() or utc_now()
    return {f.uuid for f in await load_facts(lab, spec.group_id) if _superseded_by(f, cutoff)}


def _stale_flags(
    superseded: set[str], rankings: dict[tuple[str, str, int], dict[str, list[str]]], keep: int
) -> dict[tuple[str, str, int], dict[str, tuple[bool, ...]]]:
    """Per (recipe, reranker, N) and query: whether each of the first `keep` facts is superseded."""
    return {
        key: {qid: tuple(u in superseded for u in ranking[:keep]) for qid, ranking in by_query.items()}
        for key, by_query in rankings.items()
    }


def _superseded_by(fact: FactRow, cutoff: datetime) -> bool:
    return any(when is not None and as_utc(when) <= cutoff for when in (fact.invalid_at, fact.expired_at))


async def _fact_texts(lab: Lab, group_id: str, uuids: list[str]) -> dict[str, str]:
    return await lab.backend.cypher.fact_texts(group_id, uuids)
