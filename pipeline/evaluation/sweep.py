"""Parameter sweeps: every (candidates N, top-k, reranker) setting over a labelled query set.

Every query is ranked by `rank()` (pipeline/retrieval/retrieve.py), the path every page and the CLI rank through,
with one setting per (recipe, reranker, N) and the sweep's hooks: the store's caches, the cancel flag, the phase
timer and the facts' vectors shared by every query. So what is computed once and reused is what `rank()` shares:

- each query is embedded once (and not at all when every pool of it comes from the cache);
- the first stage runs once per query and depth N. A prefix of a deeper list is NOT the shallower
  list (graphiti asks each method for 2 x N before RRF, and BFS starts from those hits), which
  `tests/integration/test_sweep.py` checks on the demo deal, so each N is retrieved on its own;
  deepest first, so a cross-encoder has scored every fact of the shallower pools already;
- each reranker scores each (query, N) pool once; every k cuts that one ranking;
- the deal's facts and vectors are read once for the whole sweep and held in memory when they fit
  (`held_facts.py`): numpy answers the exact cosine list, and a re-scorer or MMR reads no vector;
- otherwise the stored vectors a re-scorer or MMR needs are read once per fact for the whole sweep
  (`FactVectors`: queries share many facts, and reading a vector costs far more than finding it), for the union
  of a query's retrieved pools in one indexed lookup (`QueryVectors`, pipeline/retrieval/rerank.py);
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

import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pipeline.errors import InvalidInput
from pipeline.evaluation.fingerprint import run_fingerprint
from pipeline.evaluation.judgments import EvalQuery, EvalSet, load_eval_set
from pipeline.evaluation.manifest import run_manifest
from pipeline.evaluation.records import (
    BASELINE,
    CancelFlag,
    Progress,
    SweepCancelled,
    SweepResult,
    SweepSpec,
    SweepStats,
)
from pipeline.evaluation.sweep_queries import (
    CONCURRENT_QUERIES,
    Counts,
    QueryRanker,
    StateTracker,
    SweepScores,
    graph_state,
    rank_all,
)
from pipeline.evaluation.sweep_scores import SettingRankings, ranking_key, score_settings
from pipeline.rerankers import (
    LabReranker,
    has_key,
    make_reranker,
    reranker_choices,
    searches_for,
    traits,
)
from pipeline.retrieval.setting import Setting
from pipeline.temporal.records import FactRow
from pipeline.temporal.timeline import load_facts
from pipeline.timing import Phases
from pipeline.utc import as_utc, now_iso, utc_now

if TYPE_CHECKING:
    from pipeline.lab import Lab


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
    needed = {ranking_key(s) for s in (*spec.grid(), BASELINE)}  # (recipe, reranker, N) to rank
    recipes = {key: spec.recipe(key) for key in dict.fromkeys([*spec.recipes, BASELINE.recipe.key])}
    order = {key: i for i, key in enumerate(recipes)}
    rerankers = list(dict.fromkeys([BASELINE.reranker, *spec.rerankers]))
    # deepest first within a recipe (see the module docstring); one setting per ranking, k cut afterwards
    ranked_settings = [
        Setting(recipes[recipe], depth, name, 1)
        for recipe, depth in sorted({(recipe, n) for recipe, _, n in needed}, key=lambda p: (order[p[0]], -p[1]))
        for name in rerankers
        if (recipe, name, depth) in needed
    ]
    rankers: dict[str, LabReranker | None] = {name: make_reranker(name, lab.settings) for name in rerankers}
    models = {name: (getattr(r, "model", "") or r.name) if r else "" for name, r in rankers.items()}
    keep = max(10, *spec.top_ks)

    filter_key = f"as_of:{spec.as_of}" if spec.as_of else ("all" if spec.include_superseded else "current")
    phases = Phases()
    stats = Counts()
    ranker = QueryRanker(
        lab,
        spec,
        ranked_settings,
        rankers,
        SweepScores(lab.store, spec.use_cache, stats),
        spec.include_superseded,
        spec.as_of_datetime(),
        stats,
        phases,
        cancel,
    )
    await ranker.hold()
    with phases.time("graph_state"):
        tracker = StateTracker(lab, spec, filter_key, await graph_state(lab.backend, lab.store, spec.group_id))
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
        pools = len({s.pool for s in ranked_settings})
        first_pass(0, total, f"{total} queries x {pools} pools x {len(rerankers)} rerankers")
    first = await rank_all(ranker, tracker, chosen.queries, first_pass, cancel, max(1, concurrency))
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
    acc = {(recipe, r, n): SettingRankings(model=models[r]) for recipe, r, n in needed}
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
        settings, rows = score_settings(lab, spec, chosen, acc, facts, stale)
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


def _share(progress: Progress | None, part: int, parts: int) -> Progress | None:
    """Progress of one of `parts` passes over the queries, reported as a share of all of them."""
    if progress is None or parts == 1:
        return progress
    return lambda done, total, message: progress(part * total + done, parts * total, message)


async def _unfiltered_rankings(
    r: QueryRanker,
    state: tuple[object, ...],
    queries: Sequence[EvalQuery],
    progress: Progress | None,
    cancel: CancelFlag | None,
    concurrency: int,
) -> dict[tuple[str, str, int], dict[str, list[str]]] | None:
    """Every query ranked again as the sweep ranked it, but with superseded facts left in (no date filter): what
    the superseded filter keeps out (None when cancelled). Pools are cached as an include-superseded sweep caches
    them."""
    unfiltered = replace(r, include_superseded=True, as_of=None, stats=Counts())
    tracker = StateTracker(r.lab, r.spec, "all", state)
    await tracker.start()
    second = await rank_all(unfiltered, tracker, queries, progress, cancel, max(1, concurrency))
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
