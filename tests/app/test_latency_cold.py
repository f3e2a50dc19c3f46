"""Issue 38, item 5 (Latency): cold runs marked and kept apart, a reranker that never reranked marked, and no
column that says nothing (it pushed the last headers off the page).

A process's first run of each reranker on each deal pays for loading models, opening connections and compiling
statements; a few such runs made "no reranking" look slower than reranking (395 vs 130 ms p50). Each run now
records whether it was cold, and the Latency page leaves cold runs out of its percentiles and charts unless asked.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.latency.tables import NEVER_RAN, costs_frame
from dashboard.latency.view import latency_data
from pipeline.history.latency import load_timings
from pipeline.history.records import RunFilter
from pipeline.history.repo import load_run, save_run
from pipeline.lab import Lab
from pipeline.retrieval import retrieve as retrieve_module
from pipeline.retrieval.retrieve import retrieve
from tests.app.conftest import no_errors, open_page

QUERY = "What was Halcyon's FY2025 revenue? (cold runs)"


@pytest.fixture
async def runs(lab: Lab, demo: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> list[int]:
    """As a fresh process records them: none (cold), none (warm), local (cold: its first), local (warm); the cold
    ones made ten times slower, as a cold start is. Their queries contain `QUERY` and the test's name."""
    monkeypatch.setattr(retrieve_module, "_WARM", set())
    ids = []
    for i, reranker in enumerate(("none", "none", "local", "local")):
        run = await retrieve(lab, f"{QUERY} {request.node.name} {i}", demo, 25, 5, reranker)
        if run.cold:
            slow = {stage: ms * 10 for stage, ms in run.timings.stages_ms.items()}
            run = replace(run, timings=replace(run.timings, stages_ms=slow))
        ids.append(save_run(lab.store, run, "cli"))
    return ids


def test_the_first_run_of_each_reranker_in_a_process_is_recorded_cold(lab: Lab, runs: list[int]) -> None:
    assert [load_run(lab.store, i).run.cold for i in runs] == [True, False, True, False]
    table = load_timings(lab.store, RunFilter(text=f"{QUERY} test_the_first_run"))
    assert dict(zip(table.run_ids.tolist(), table.cold_mask.tolist(), strict=True)) == dict(
        zip(runs, [True, False, True, False], strict=True)
    )


def test_cold_runs_are_left_out_of_the_percentiles_unless_asked(lab: Lab, runs: list[int]) -> None:
    flt = RunFilter(text=f"{QUERY} test_cold_runs_are_left_out")
    warm = latency_data(lab.store, lab.settings, flt)
    assert (warm.runs, warm.cold, len(warm.table)) == (4, 2, 2)
    total = {s.stage: s for s in warm.stages}["total"]
    assert total.runs == 2
    # each reranker's p50 is its warm run's alone: the cold start (ten times slower here) no longer counts
    p50 = {row["reranker"]: row["p50 total"] for row in warm.rerankers}
    warm_totals = [load_run(lab.store, i).run.timings.stages_ms["total"] for i in (runs[1], runs[3])]
    assert [p50["none"], p50["local"]] == pytest.approx(warm_totals)
    everything = latency_data(lab.store, lab.settings, flt, include_cold=True)
    assert len(everything.table) == 4 and everything.cold_shown
    assert {s.stage: s for s in everything.stages}["total"].p50 > total.p50
    assert warm.cold_p50 is not None and warm.cold_p50 > total.p95


def test_the_page_says_how_many_cold_runs_and_can_include_them(app: AppTest, lab: Lab, runs: list[int]) -> None:
    open_page(app, "app_pages/latency.py")
    no_errors(app)
    expected = latency_data(lab.store, lab.settings, RunFilter(group_id="demo"))  # other tests' runs too
    assert expected.cold >= 2 and expected.runs > expected.cold
    note = next(c.value for c in app.caption if "cold runs" in c.value)
    assert note.startswith(f"{expected.cold:,} cold runs (the first run of each reranker on each deal"), note
    assert "left out" in note
    assert app.dataframe[0].value.set_index("Stage").loc["total", "Runs"] == expected.runs - expected.cold
    app.toggle(key="latency.cold").set_value(True).run()
    no_errors(app)
    assert app.dataframe[0].value.set_index("Stage").loc["total", "Runs"] == expected.runs


def _row(reranker: str, runs: int, fallbacks: int, tokens: float = 0.0) -> dict[str, object]:
    return {
        "reranker": reranker,
        "runs": runs,
        "p50 total": 100.0,
        "p95 total": 120.0,
        "p50 rerank": 0.1,
        "p95 rerank": 0.1,
        "tokens/query": tokens,
        "$ / M tokens": 0.05 if tokens else None,
        "searches/query": 0.0,
        "$ / 1k searches": 2.0,
        "$ / query": 0.0,
        "$ / 1k queries": 0.0,
        "fallbacks": fallbacks,
    }


def test_a_reranker_that_never_reranked_is_marked() -> None:
    frame = costs_frame([_row("cohere · rerank-v3.5", 3, 3), _row("local", 3, 0), _row("none", 2, 0)])
    assert list(frame["reranker"]) == ["cohere · rerank-v3.5" + NEVER_RAN, "local", "none"]


def test_columns_that_say_nothing_are_left_out() -> None:
    quiet = costs_frame([_row("local", 3, 0), _row("none", 2, 0)])
    assert not {"tokens/query", "$ / M tokens", "searches/query", "$ / 1k searches", "fallbacks"} & set(quiet.columns)
    assert {"p50 total", "$ / 1k queries"} <= set(quiet.columns) and "$ / query" not in quiet.columns
    billed = costs_frame([_row("voyage · rerank-2.5", 3, 1, tokens=900.0), _row("none", 2, 0)])
    assert {"tokens/query", "$ / M tokens", "fallbacks"} <= set(billed.columns)
