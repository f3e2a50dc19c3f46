"""Runs recorded from real retrievals on the demo deal: from the pipeline, the CLI and the bench."""

from __future__ import annotations

import json

import pytest

from benchmarks.bench import bench
from pipeline.cli import main
from pipeline.history.latency import load_timings, stage_percentiles
from pipeline.history.records import RunFilter
from pipeline.history.repo import list_runs, load_run, save_run
from pipeline.lab import Lab
from pipeline.retrieval.recipes import Recipe
from pipeline.retrieval.retrieve import retrieve
from pipeline.store.db import Store


async def test_a_real_run_comes_back_exactly_after_a_reopen(lab: Lab, demo: str) -> None:
    run = await retrieve(lab, "What was Halcyon's FY2025 revenue?", demo, 25, 5, "local")
    assert run.results and run.results[0].citations  # something worth keeping
    assert run.software == lab.software() and run.software["backend"] == "embedded FalkorDB"  # what it ran on
    run_id = save_run(lab.store, run, "dashboard")

    stored = load_run(Store(lab.store.path), run_id)  # a fresh Store and connection on the same file
    assert stored.run == run
    assert json.dumps(stored.run.to_dict(), default=str) == json.dumps(run.to_dict(), default=str)
    assert stored.summary.source == "dashboard" and stored.summary.result_count == 5
    rows = lab.store.query("SELECT uuid, score FROM run_results WHERE run_id = ? ORDER BY rank", (run_id,))
    assert [(r["uuid"], r["score"]) for r in rows] == [(r.uuid, r.ranked.score) for r in run.results]
    stages = {r["stage"]: r["ms"] for r in lab.store.query("SELECT * FROM run_stages WHERE run_id = ?", (run_id,))}
    assert stages == run.timings.stages_ms


def test_cli_query_records_its_run(demo: str, capsys: pytest.CaptureFixture[str]) -> None:
    query = "Who is Halcyon's CFO? (cli history test)"
    assert main(["query", query, "--group", demo, "--candidates", "10", "--top-k", "3", "--json"]) == 0
    out, err = capsys.readouterr()
    printed = json.loads(out)
    assert "recorded as run #" in err
    run_id = int(err.split("recorded as run #")[1].split()[0])
    from pipeline.settings import get_settings
    from pipeline.store.db import open_store

    stored = load_run(open_store(get_settings().resolved_data_dir), run_id)
    assert (stored.summary.source, stored.run.query) == ("cli", query)
    assert [r.uuid for r in stored.run.results] == [r["uuid"] for r in printed["results"]]


async def test_bench_writes_its_runs_to_the_store(lab: Lab, demo: str, monkeypatch: pytest.MonkeyPatch) -> None:
    before = {r.id for r in list_runs(lab.store, RunFilter(sources=("bench",)))}
    monkeypatch.setattr(lab.settings, "held_facts_mb", 512)  # the session's Lab holds none (tests/conftest.py)
    try:
        rows, held = await bench(lab, demo, depths=(5, 10), top_k=3, reranker="none", limit_queries=2)
    finally:
        lab.facts.release(demo)
    assert held is not None and held.facts > 100  # the deal's facts held first, as the dashboard holds them
    new = [r for r in list_runs(lab.store, RunFilter(sources=("bench",))) if r.id not in before]
    assert len(new) == 4 == sum(row.queries for row in rows)  # 2 queries x 2 depths; the warm-up is not kept
    assert sorted(r.candidates for r in new) == [5, 5, 10, 10]
    table = load_timings(lab.store, RunFilter(sources=("bench",)))
    total = next(s for s in stage_percentiles(table) if s.stage == "total")
    assert total.runs >= 4 and 0 < total.p50 <= total.p95 <= total.p99


async def test_bench_times_the_recipe_it_is_given_beside_stock_search_with_that_recipe(lab: Lab, demo: str) -> None:
    before = {r.id for r in list_runs(lab.store, RunFilter(sources=("bench",)))}
    (row,), _ = await bench(
        lab, demo, depths=(10,), top_k=3, reranker="none", limit_queries=2, recipe=Recipe.preset("vector")
    )
    new = [r for r in list_runs(lab.store, RunFilter(sources=("bench",))) if r.id not in before]
    assert {r.recipe for r in new} == {"vector"}
    assert "cosine" in row.stages and "bm25" not in row.stages and "bfs" not in row.stages
    assert row.stock_search is not None and row.first_stage_ratio is not None
    # graphiti's node distance needs a center: without one, stock search_() is not run
    (row,), held = await bench(
        lab,
        demo,
        depths=(10,),
        top_k=3,
        reranker="none",
        limit_queries=1,
        record=False,
        recipe=Recipe.parse("node-distance"),
        hold=False,
    )
    assert row.stock_search is None and "fusion" in row.stages and held is None


async def test_a_run_keeps_its_recipe_and_history_says_when_two_differ(lab: Lab, demo: str) -> None:
    from pipeline.history.compare import compare_runs

    query = "What was Halcyon's FY2025 revenue?"
    walk = await retrieve(lab, query, demo, 25, 5, "none", recipe=Recipe.preset("hybrid-walk"))
    vector = await retrieve(lab, query, demo, 25, 5, "none", recipe=Recipe.preset("vector"))
    ids = [save_run(lab.store, run, "cli") for run in (walk, vector)]
    stored = [load_run(lab.store, run_id) for run_id in ids]
    assert [s.run.recipe for s in stored] == [s.summary.recipe for s in stored] == ["hybrid-walk", "vector"]
    assert "recipe" in compare_runs(stored[0].run, stored[1].run).differing
    # a run recorded before recipes (no recipe in its payload) is the hybrid walk it ran
    old = {k: v for k, v in walk.to_dict().items() if k != "recipe"}
    from pipeline.history.records import run_from_dict

    assert run_from_dict(old).recipe == "hybrid-walk"
