"""The sweep cache is keyed by the graph state at the moment each pool is computed (issue 15, item 4): a
correction landing in the middle of a sweep, undone afterwards, must not leave pools of the corrected graph
cached under the original graph's fingerprint (a later cached sweep would rank a deleted fact)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from pipeline.corrections.actions import correct_fact, undo_correction
from pipeline.corrections.records import CorrectionRequest
from pipeline.evaluation import judgments
from pipeline.evaluation.cache import FirstStageCache, graph_fingerprint
from pipeline.evaluation.records import METRIC_NAMES, SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.retrieval import retrieve as ranking

GROUP = "sweep_state"
# the cache is what is tested, under hybrid-walk: after a correction and its undo, graphiti-default's two-list fusion
# ranks some queries differently from before (hit@5 0.67 -> 0.50 over these 6 queries; issue 26 reports the same
# drift), more than the tolerance below allows
RECIPE = "hybrid-walk"
SPEC = dict(candidates=(10, 25), top_ks=(5,), rerankers=("none",), limit_queries=6, recipes=(RECIPE,))


async def test_a_correction_between_pools_does_not_poison_the_cache(lab: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=GROUP, force=True)
    embedder = lab.embedder.info.describe()
    original = await graph_fingerprint(lab.backend, GROUP, embedder)
    chosen = (await judgments.load_eval_set(lab, GROUP)).select(None, 6)
    target_query = chosen.queries[2]
    judged_fact = max(chosen.qrels[target_query.id].items(), key=lambda kv: kv[1])[0]
    old_text = (await lab.backend.cypher.fact_texts(GROUP, [judged_fact]))[judged_fact]

    real_search = ranking.search_recipe
    made: list[str] = []

    async def search_then_correct(lists: Any, *args: Any, **kwargs: Any) -> Any:
        result = await real_search(lists, *args, **kwargs)
        if lists.query == target_query.text and not made:  # after this query's first (deepest) pool, before the next
            request = CorrectionRequest(judged_fact, f"{old_text} (restated)", "qa_response", "CFO", date(2026, 4, 2))
            made.append((await correct_fact(lab, GROUP, request, actor="Ana")).id)
        return result

    monkeypatch.setattr(ranking, "search_recipe", search_then_correct)
    await run_sweep(lab, SweepSpec(GROUP, use_cache=True, **SPEC))  # type: ignore[arg-type]
    monkeypatch.undo()
    assert made, "the hook never ran: the test did not put a correction between pools"
    corrected = await graph_fingerprint(lab.backend, GROUP, embedder)
    correction = await undo_correction(lab, GROUP, made[0], actor="Ana")
    assert await graph_fingerprint(lab.backend, GROUP, embedder) == original  # the undo restores the graph

    # nothing cached under the original graph names the corrected fact, which no longer exists
    live = {f["uuid"] for f in await lab.backend.cypher.facts(GROUP)}
    assert correction.new_uuid not in live
    cache = FirstStageCache(lab.store, GROUP, original, "current")
    for query in chosen.queries:
        for depth in SPEC["candidates"]:  # type: ignore[attr-defined]
            pool = cache.get(RECIPE, depth, query.text)
            if pool is not None:
                assert set(pool.uuids) <= live, f"{query.text!r} N={depth}: a pool of another graph state"
    # the corrected graph's pools were kept, under its own fingerprint
    assert FirstStageCache(lab.store, GROUP, corrected, "current").get(RECIPE, 10, target_query.text) is not None

    cached = await run_sweep(lab, SweepSpec(GROUP, use_cache=True, **SPEC))  # type: ignore[arg-type]
    ranked = {u for row in cached.rows for u in row.ranking}
    assert correction.new_uuid not in ranked and ranked <= live
    fresh = await run_sweep(lab, SweepSpec(GROUP, use_cache=False, **SPEC))  # type: ignore[arg-type]
    for mine, theirs in zip(cached.settings, fresh.settings, strict=True):  # BFS ties may differ a little
        quality = [*METRIC_NAMES]  # tokens@k is a size, not a 0-1 metric: the quality metrics are compared
        assert {n: mine.metrics[n] for n in quality} == pytest.approx({n: theirs.metrics[n] for n in quality}, abs=0.02)
    await lab.backend.delete_graph(GROUP)
