"""Sweeps on the real embedded FalkorDB and the demo deal: reuse of work, caches, cancel, experiments."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import replace

import pytest

from pipeline.errors import InvalidInput
from pipeline.evaluation import judgments
from pipeline.evaluation.cache import RerankCache, graph_fingerprint
from pipeline.evaluation.compare import compare_experiments, wins_and_losses
from pipeline.evaluation.experiments import list_experiments, load_experiment, save_experiment
from pipeline.evaluation.export import settings_table, to_csv
from pipeline.evaluation.records import METRIC_NAMES, SweepCancelled, SweepResult, SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab
from pipeline.retrieval.filters import temporal_filter
from pipeline.retrieval.first_stage import MethodLists, search_recipe
from pipeline.retrieval.hooks import ScoreCall
from pipeline.retrieval.recipes import DEFAULT_RECIPE, Recipe
from pipeline.retrieval.retrieve import retrieve
from pipeline.settings import Settings
from tests.support.fakes.voyage_server import FakeVoyageServer

DEFAULT = Recipe.preset(DEFAULT_RECIPE)  # the sweep's first stage by default
SMALL = dict(candidates=(10, 25), top_ks=(3, 10), rerankers=("none", "local"), limit_queries=6)


async def test_demo_labelled_set_size_and_type_mix(lab: Lab, demo: str) -> None:
    found = await judgments.load_eval_set(lab, demo)
    assert len(found.queries) == 54 and len(found.scorable) == 54
    assert found.type_mix == {"factual": 20, "entity": 12, "comparative": 11, "exploratory": 11}
    assert sum(found.type_mix.values()) == 54
    assert "labelled" in judgments.judgment_sources()
    with pytest.raises(InvalidInput, match="Unknown judgments source"):
        await judgments.load_eval_set(lab, demo, "hearsay")


async def test_a_deeper_first_stage_is_not_a_prefix_so_each_depth_is_retrieved(lab: Lab, demo: str) -> None:
    """graphiti asks each method for 2 x N before RRF: the top 50 of N=100 is not the N=50 list."""
    found = await judgments.load_eval_set(lab, demo)
    driver, flt = lab.backend.driver(demo), temporal_filter(False, None)
    differ = 0
    for query in found.queries[:12]:
        vector = await lab.embedder.embed_query(query.text)
        lists = MethodLists(driver, query.text, vector, demo, flt)
        shallow, deep = await search_recipe(lists, DEFAULT, 50), await search_recipe(lists, DEFAULT, 100)
        differ += [e.uuid for e in shallow.edges] != [e.uuid for e in deep.edges][:50]
    assert differ >= 6, f"only {differ} of 12 queries differ: reusing a prefix might be safe after all"


async def test_sweep_matches_the_live_pipeline_and_reuses_its_cache(lab: Lab, demo: str) -> None:
    spec = SweepSpec(demo, use_cache=False, **SMALL)  # type: ignore[arg-type]
    seen: list[tuple[int, int]] = []
    cold = await run_sweep(lab, spec, progress=lambda done, total, _m: seen.append((done, total)))
    assert seen[0] == (0, 6) and seen[-1] == (6, 6) and len(seen) == 7
    keys = [s.key for s in cold.settings]
    # 2 rerankers x 2 N x 2 k, then the baseline (none, N=50, k=10) added because the grid lacks it
    assert keys == [
        "graphiti-default none N=10 k=3",
        "graphiti-default none N=10 k=10",
        "graphiti-default none N=25 k=3",
        "graphiti-default none N=25 k=10",
        "graphiti-default local N=10 k=3",
        "graphiti-default local N=10 k=10",
        "graphiti-default local N=25 k=3",
        "graphiti-default local N=25 k=10",
        "graphiti-default none N=50 k=10",
    ]
    assert (
        not cold.setting("graphiti-default none N=50 k=10").in_grid
        and cold.setting("graphiti-default none N=50 k=10").p_value is None
    )
    assert cold.stats.pools_retrieved == 6 * 3 and cold.stats.rerank_calls == 6 * 2
    # the sweep ranks exactly as retrieve() does: local reranker, N=25
    first = cold.queries[cold.rows[0].query_id][0]
    run = await retrieve(lab, first, demo, 25, 10, "local")
    row = next(
        r
        for r in cold.rows
        if r.setting.key == "graphiti-default local N=25 k=10" and cold.queries[r.query_id][0] == first
    )
    assert list(row.ranking) == [r.uuid for r in run.results]
    for s in cold.settings:
        assert all(0.0 <= s.metrics[name] <= 1.0 for name in METRIC_NAMES)
        assert s.metrics["tokens@k"] > 0  # the context handed on, in tokens (not a 0-1 metric)
    # k only cuts one ranking: @10 metrics are the same for k=3 and k=10, and ndcg@k at k=10 is ndcg@10
    a, b = cold.setting("graphiti-default local N=25 k=3"), cold.setting("graphiti-default local N=25 k=10")
    assert a.metrics["ndcg@10"] == b.metrics["ndcg@10"] and a.p50_ms == b.p50_ms
    assert b.metrics["ndcg@k"] == pytest.approx(b.metrics["ndcg@10"])
    assert a.metrics["recall@k"] <= b.metrics["recall@k"]

    warm = await run_sweep(lab, SweepSpec(demo, **SMALL))  # type: ignore[arg-type]
    assert warm.stats.pools_retrieved == 0 and warm.stats.pools_cached == 18
    assert warm.stats.rerank_calls == 0 and warm.stats.rerank_cached == 12
    for s in cold.settings:  # same rankings, same metrics, same (stored) latencies
        w = warm.setting(s.key)
        assert w.metrics == s.metrics and w.p50_ms == pytest.approx(s.p50_ms)


async def test_a_cancel_between_queries_keeps_the_finished_ones_marked_partial(lab: Lab, demo: str) -> None:
    """A cancel keeps what finished: the sweep over those queries (the same numbers as a sweep of just them),
    marked partial, its recommendation saying it rests on a partial run. `run_sweep` itself saves nothing."""
    cancel = threading.Event()
    before = len(list_experiments(lab.store))

    def progress(done: int, total: int, _message: str) -> None:
        if done == 2:
            cancel.set()  # what the page's Cancel button does

    with pytest.raises(SweepCancelled, match="after 2 of 6 queries") as caught:
        await run_sweep(lab, SweepSpec(demo, **SMALL), progress=progress, cancel=cancel)  # type: ignore[arg-type]
    assert len(list_experiments(lab.store)) == before
    partial = caught.value.partial
    assert partial is not None
    assert partial.partial == {"reason": "cancelled", "queries": 2, "of": 6}
    assert partial.partial_text == "cancelled after 2 of 6 queries"
    assert partial.stats.queries == 2 and len(partial.queries) == 2 and set(partial.qrels) == set(partial.queries)
    assert {r.query_id for r in partial.rows} == set(partial.queries)
    whole = await run_sweep(lab, SweepSpec(demo, **{**SMALL, "limit_queries": 2}))  # type: ignore[arg-type]
    assert set(whole.queries) == set(partial.queries) and not whole.partial
    assert [s.metrics for s in partial.settings] == [s.metrics for s in whole.settings]
    rec = partial.recommendation()
    assert rec.sentence.startswith("On a partial run (cancelled after 2 of 6 queries): ")
    assert rec.key == whole.recommendation().key
    assert partial.to_dict()["partial"] == partial.partial  # the JSON export says so too


async def test_a_cancel_with_queries_in_flight_keeps_every_finished_one(lab: Lab, demo: str) -> None:
    """Two queries at a time: the queries in flight when the cancel comes are waited for, and each that finished
    is kept (with its rows), in the set's order; the partial result equals a sweep of just those queries."""
    cancel = threading.Event()

    def progress(done: int, _total: int, _message: str) -> None:
        if done == 3:
            cancel.set()

    spec = SweepSpec(demo, **SMALL)  # type: ignore[arg-type]
    with pytest.raises(SweepCancelled) as caught:
        await run_sweep(lab, spec, progress=progress, cancel=cancel, concurrency=2)
    partial = caught.value.partial
    assert partial is not None and 3 <= partial.partial["queries"] <= 4 and partial.partial["of"] == 6
    kept = list(partial.queries)
    assert len(kept) == partial.partial["queries"] == partial.stats.queries
    assert {r.query_id for r in partial.rows} == set(kept)
    whole = await run_sweep(lab, SweepSpec(demo, **SMALL))  # type: ignore[arg-type]
    assert kept == [q for q in whole.queries if q in set(kept)]  # the set's order
    assert {s.key: s.metrics for s in partial.settings} == {
        s.key: s.metrics for s in (await _sweep_of(lab, spec, kept)).settings
    }


async def _sweep_of(lab: Lab, spec: SweepSpec, query_ids: list[str]) -> SweepResult:
    """The same sweep over just these queries of the set."""
    full = await judgments.load_eval_set(lab, spec.group_id)
    chosen = full.select()
    subset = replace(
        chosen,
        queries=tuple(q for q in chosen.queries if q.id in query_ids),
        qrels={q: j for q, j in chosen.qrels.items() if q in query_ids},
    )
    return await run_sweep(lab, replace(spec, limit_queries=None), eval_set=subset)


async def test_a_cancel_before_any_query_finished_has_nothing_to_keep(lab: Lab, demo: str) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(SweepCancelled, match="after 0 of 6 queries; nothing to save") as caught:
        await run_sweep(lab, SweepSpec(demo, **SMALL), cancel=cancel)  # type: ignore[arg-type]
    assert caught.value.partial is None


async def test_experiment_round_trip_compare_export_and_wins(lab: Lab, demo: str) -> None:
    result = await run_sweep(lab, SweepSpec(demo, **SMALL))  # type: ignore[arg-type]
    exp_id = save_experiment(lab.store, result, "  sweep   round trip ")
    info, loaded = load_experiment(lab.store, exp_id)
    assert info.name == "sweep round trip" and info.queries == 6
    assert [s.key for s in loaded.settings] == [s.key for s in result.settings]
    assert loaded.settings == result.settings
    assert sorted(loaded.rows, key=lambda r: (r.setting.key, r.query_id)) == sorted(
        result.rows, key=lambda r: (r.setting.key, r.query_id)
    )
    assert loaded.qrels == result.qrels and loaded.facts == result.facts
    with pytest.raises(InvalidInput, match="already exists"):
        save_experiment(lab.store, result, "sweep round trip")
    assert sum(e.name == "sweep round trip" for e in list_experiments(lab.store)) == 1

    same = compare_experiments(result, loaded)
    assert len(same) == len(result.settings) and all(c.delta == 0 and c.p_value == 1.0 for c in same)
    csv_text = to_csv(loaded)
    assert csv_text.splitlines()[0].startswith("setting,recipe,reranker,N,k,ndcg@k,recall@k,precision@k,hit@k,ndcg@10")
    assert len(csv_text.splitlines()) == 1 + len(result.settings)
    assert settings_table(loaded)[0]["setting"] == "graphiti-default none N=10 k=3"

    wins, losses = wins_and_losses(loaded, "graphiti-default local N=25 k=10")
    base, other = (
        loaded.per_query(loaded.baseline, "ndcg@10"),
        loaded.per_query("graphiti-default local N=25 k=10", "ndcg@10"),
    )
    assert {w.query_id for w in wins} == {q for q in base if other[q] > base[q]}
    assert {w.query_id for w in losses} == {q for q in base if other[q] < base[q]}
    for change in (*wins, *losses):
        assert change.judged and all(j.fact and j.grade >= 1 for j in change.judged)


async def test_rerank_cache_is_keyed_by_fact_text_and_pool(lab: Lab, demo: str) -> None:
    cache = RerankCache(lab.store)

    def whole(reranker: str, model: str, uuids: tuple[str, ...], facts: tuple[str, ...]) -> list[float] | None:
        hits = cache.lookup(reranker, model, "q?", uuids, facts)
        return [hits[u][0] for u in uuids] if len(hits) == len(uuids) else None

    uuids, facts = ("u1", "u2"), ("fact one", "fact two")
    cache.put(ScoreCall("local", "model-x", "q?", uuids, facts, [0.3, 0.7], ms=10.0, tokens=0))
    hit = cache.lookup("local", "model-x", "q?", uuids, facts)
    assert whole("local", "model-x", uuids, facts) == [0.3, 0.7]
    assert sum(row[1] for row in hit.values()) == pytest.approx(10.0)
    # a pool-dependent re-scorer's scores do not carry over to another pool, even of the same facts
    assert whole("local", "model-x", ("u2", "u1"), ("fact two", "fact one")) is None
    # an edited fact text is a miss
    assert whole("local", "model-x", ("u1", "u2"), ("fact one", "fact 2")) is None
    # a cross-encoder's scores are per (query, fact): a bigger pool reuses the facts already scored
    cache.put(ScoreCall("voyage", "rerank-x", "q?", uuids, facts, [0.3, 0.7], ms=8.0, tokens=20))
    bigger = ("u2", "u3", "u1"), ("fact two", "fact three", "fact one")
    assert set(cache.lookup("voyage", "rerank-x", "q?", *bigger)) == {"u1", "u2"}


async def test_fingerprint_changes_with_the_graph(lab: Lab) -> None:
    from pipeline.ingest.demo.seed import seed_demo

    group = "demo_eval"
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=group)
    before = await graph_fingerprint(lab.backend, group, "e")
    assert await graph_fingerprint(lab.backend, group, "e") == before
    assert await graph_fingerprint(lab.backend, group, "other embedder") != before
    rows = await lab.backend.query(group, "MATCH ()-[e:RELATES_TO]->() RETURN e.uuid AS u, e.fact AS f LIMIT 1")
    await lab.backend.query(group, "MATCH ()-[e:RELATES_TO {uuid: $u}]->() SET e.fact = $f", u=rows[0]["u"], f="x")
    assert await graph_fingerprint(lab.backend, group, "e") != before
    await lab.backend.query(
        group, "MATCH ()-[e:RELATES_TO {uuid: $u}]->() SET e.fact = $f", u=rows[0]["u"], f=rows[0]["f"]
    )
    assert await graph_fingerprint(lab.backend, group, "e") == before


async def test_voyage_is_called_once_per_query_and_fact(lab: Lab, demo: str) -> None:
    with FakeVoyageServer(api_key="vk-test") as server:
        settings = Settings(
            data_dir=lab.settings.data_dir,
            embedder="local",
            voyage_api_key="vk-test",
            voyage_base_url=server.base_url,
            voyage_timeout_s=30.0,  # roomy: the stand-in answers at once, however loaded the machine
            voyage_rerank_model="rerank-2.5",
        )
        voyage_lab = Lab(settings=settings, backend=lab.backend, embedder=lab.embedder)
        spec = SweepSpec(demo, candidates=(10, 25), top_ks=(5,), rerankers=("voyage",), limit_queries=4)
        cold = await run_sweep(voyage_lab, spec)
        sent = [r for r in server.requests if r.path.endswith("/rerank")]
        assert 4 <= len(sent) <= 8  # N=25 first; N=10 only for facts the N=25 pool lacked
        per_query = Counter((r.body["query"], d) for r in sent for d in r.body["documents"])
        assert max(per_query.values()) == 1  # no (query, fact) pair is sent twice
        assert cold.setting("graphiti-default voyage N=25 k=5").tokens > 0
        assert cold.setting("graphiti-default voyage N=25 k=5").cost_usd is not None
        server.reset()
        warm = await run_sweep(voyage_lab, spec)
        assert [r for r in server.requests if r.path.endswith("/rerank")] == []
        assert (
            warm.setting("graphiti-default voyage N=25 k=5").metrics
            == cold.setting("graphiti-default voyage N=25 k=5").metrics
        )
        assert (
            warm.setting("graphiti-default voyage N=25 k=5").tokens
            == cold.setting("graphiti-default voyage N=25 k=5").tokens
        )


async def test_a_concurrent_sweep_equals_each_setting_run_alone_through_retrieve(lab: Lab, demo: str) -> None:
    """Everything the sweep shares across settings (the query's embedding, one pool per N for every reranker and
    k, one reranker ranking per pool for every k) and runs at once (queries in flight together) gives, for every
    setting, query by query, the ranking and the metrics that `retrieve()` gives for that setting alone."""
    from pipeline.evaluation import metrics as m
    from pipeline.evaluation.records import AT_K, FIXED

    spec = SweepSpec(
        demo,
        (10, 25, 50),
        (3, 10),
        ("none", "local"),
        limit_queries=6,
        use_cache=False,
        recipes=("hybrid-walk", "vector"),
    )
    swept = await run_sweep(lab, spec, concurrency=3)
    chosen = (await judgments.load_eval_set(lab, demo)).select(None, 6)
    rows = {(r.setting.key, r.query_id): r for r in swept.rows}
    compared = 0
    for setting in spec.grid():
        key, reranker, n, k = setting.key, setting.reranker, setting.candidates, setting.top_k
        alone = {q.id: await retrieve(lab, q.text, demo, n, k, reranker, recipe=setting.recipe) for q in chosen.queries}
        rankings = {qid: [r.candidate.uuid for r in run.reranked] for qid, run in alone.items()}
        names = [*FIXED, *(f"{kind}@{k}" for kind in AT_K)]
        expected = m.per_query(chosen.qrels, rankings, names)
        judged = {qid: [u for u in ranking if u in chosen.qrels.get(qid, {})] for qid, ranking in rankings.items()}
        condensed = m.per_query(chosen.qrels, judged, names)  # unjudged facts left out
        for qid, ranking in rankings.items():
            row = rows[(key, qid)]
            assert list(row.ranking) == ranking[:10], f"{key}, query {qid}: another ranking than retrieve()"
            assert [r.ranked.candidate.uuid for r in alone[qid].results] == ranking[:k]
            want = {name: expected[qid][name] for name in FIXED}
            want.update({f"{kind}@k": expected[qid][f"{kind}@{k}"] for kind in AT_K})
            # the context handed on: tokens of the facts retrieve() returns as its top k
            want["tokens@k"] = float(sum(m.token_counts([r.ranked.candidate.fact for r in alone[qid].results])))
            top = ranking[:k]
            want["judged@k"] = sum(u in judged[qid] for u in top) / len(top) if top else 1.0
            want.update({f"{name}'": condensed[qid][name] for name in FIXED})
            want.update({f"{kind}@k'": condensed[qid][f"{kind}@{k}"] for kind in AT_K})
            assert row.metrics == want, f"{key}, query {qid}: other metrics than retrieve()'s ranking gives"
            compared += 1
    assert compared == 6 * len(spec.grid()) == 6 * 24
    # and the sweep run one query at a time agrees with the concurrent one exactly
    serial = await run_sweep(lab, spec, concurrency=1)
    assert sorted((r.setting.key, r.query_id, r.ranking, tuple(r.metrics.items())) for r in serial.rows) == sorted(
        (r.setting.key, r.query_id, r.ranking, tuple(r.metrics.items())) for r in swept.rows
    )
    assert [s.metrics for s in serial.settings] == [s.metrics for s in swept.settings]


async def test_a_query_with_stray_whitespace_is_cached_and_read_under_one_text(lab: Lab, demo: str) -> None:
    """`rank()` reads a query cleaned to one printable line; the sweep writes the pools it searched under that same
    text, so a repeated sweep of a query typed with tabs or double spaces searches nothing."""
    chosen = (await judgments.load_eval_set(lab, demo)).select(None, 2)
    messy = tuple(replace(q, text=f"  {q.text.replace(' ', '  ')}\t") for q in chosen.queries)
    spec = SweepSpec(demo, (10,), (5,), ("none",), limit_queries=None, use_cache=True)
    first = await run_sweep(lab, spec, eval_set=replace(chosen, queries=messy))
    again = await run_sweep(lab, spec, eval_set=replace(chosen, queries=messy))
    assert again.stats.pools_retrieved == 0
    assert again.stats.pools_cached == first.stats.pools_retrieved + first.stats.pools_cached
    assert [r.ranking for r in again.rows] == [r.ranking for r in first.rows]
