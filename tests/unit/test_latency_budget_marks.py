"""Budget breaches on the Latency page: coloured and named in the tables, red and shaped apart in the charts."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.synthetic_runs import fill_store
from dashboard.common.tables import tidy
from dashboard.latency import charts
from dashboard.latency.tables import STAGE_NAMES, _colour_stages, costs_frame, percentiles_frame
from pipeline.history import latency
from pipeline.history.latency import StagePercentiles
from pipeline.retrieval.records import BUDGETS_MS
from pipeline.store.db import Store


def stage(name: str, p50: float, p95: float, p99: float) -> StagePercentiles:
    return StagePercentiles(name, 10, p50, p95, p99, p50, BUDGETS_MS.get(name), 0.1 if name in BUDGETS_MS else None)


def test_the_over_budget_column_names_each_percentile_over_its_stage_budget() -> None:
    frame = percentiles_frame(
        [stage("rerank", 120, 320, 900), stage("total", 3200, 3300, 3500), stage("bm25", 9, 20, 40)]
    )
    assert list(frame["over"]) == ["✓ p95, p99", "✓ p50, p95, p99, mean", "—"]
    assert list(frame["budget_ms"][:2]) == [300.0, 3000.0] and np.isnan(frame["budget_ms"][2])
    styled = _colour_stages(tidy(frame, STAGE_NAMES).style)
    styled._compute()
    coloured = {(r, c) for (r, c), css in styled.ctx.items() if css}
    names = list(tidy(frame, STAGE_NAMES).columns)
    breaches = {(0, "p95 (ms)"), (0, "p99 (ms)"), *((1, c) for c in ("p50 (ms)", "p95 (ms)", "p99 (ms)", "Mean (ms)"))}
    assert coloured == {(row, names.index(column)) for row, column in breaches}  # every breach named, none else


def test_the_cost_table_says_which_latencies_are_over() -> None:
    rows = [
        {
            "reranker": "voyage",
            "runs": 3,
            "p50 total": 900.0,
            "p95 total": 3400.0,
            "p50 rerank": 200.0,
            "p95 rerank": 350.0,
        },
        {
            "reranker": "none",
            "runs": 3,
            "p50 total": 90.0,
            "p95 total": 100.0,
            "p50 rerank": float("nan"),
            "p95 rerank": float("nan"),
        },
    ]
    assert list(costs_frame(rows)["over"]) == ["✓ p95 total, p95 rerank", "—"]


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> latency.TimingTable:
    store = Store(tmp_path_factory.mktemp("latency") / "lab.sqlite3")
    fill_store(store, 300, seed=3)  # with 10 s Voyage timeouts: reranks far over budget
    return latency.load_timings(store)


def test_histogram_bars_over_the_budget_are_red_and_hatched(table: latency.TimingTable) -> None:
    over = [t for t in charts.histograms(table).data if t.name == charts.OVER_NAME]
    assert over and all(t.marker.color == charts.BUDGET and t.marker.pattern.shape == "/" for t in over)
    within = [t for t in charts.histograms(table).data if t.name == "within budget"]
    assert all(t.marker.color != charts.BUDGET for t in within)
    by_axis = {"x": "hybrid_search", "x2": "rerank", "x3": "total"}
    assert all(min(t.x) > BUDGETS_MS[by_axis[t.xaxis]] for t in over)  # bars whose middle is past the budget


def test_percentile_points_over_the_budget_get_a_red_cross(table: latency.TimingTable) -> None:
    figure = charts.latency_by_candidates(table)
    marks = [t for t in figure.data if t.name == charts.OVER_NAME]
    assert marks, "the rerank p95 with timeouts is over 300 ms"
    assert all(t.marker.color == charts.BUDGET and t.marker.symbol == "x" for t in marks)
    assert sum(bool(t.showlegend) for t in marks) == 1  # one legend entry
    by_axis = {"y": "hybrid_search", "y2": "rerank", "y3": "total"}
    for mark in marks:
        assert all(y > BUDGETS_MS[by_axis[mark.yaxis]] for y in mark.y)
