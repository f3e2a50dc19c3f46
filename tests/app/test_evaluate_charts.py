"""Issue 38, item 5: the Evaluate charts with four recipes and the Latency charts, checked on the figures' specs.

Heatmap panel titles do not run into one another; the Pareto legend is beside the plot, not over its x axis; the
recommended star is a point of the front drawn (or the chart says why it is not); latency by N is categorical, the
Ns present and nothing between; the date under a time axis is not covered by the legend.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from dashboard.evaluate.charts import heatmaps, pareto
from dashboard.latency.charts import latency_by_candidates, latency_over_time
from pipeline.evaluation.records import SettingResult, SweepResult, SweepSpec, SweepStats
from pipeline.history.latency import timing_table
from pipeline.history.records import STAGES
from pipeline.retrieval.recipes import Recipe
from pipeline.retrieval.setting import Setting

RECIPES = ("vector", "bm25", "graphiti-default", "hybrid-walk")
RERANKERS = ("none", "local")
WIDTH_PX = 1100  # the chart's width on a 1440 px page beside the sidebar
TITLE_CHAR_PX = 8  # plotly's default 14 px title font: about 7-8 px a character


def setting(recipe: str, reranker: str, n: int, k: int, ndcg: float, p50: float, in_grid: bool = True):
    made = Setting(Recipe.preset(recipe), n, reranker, k)
    return SettingResult(made, "", in_grid, {"ndcg@k": ndcg}, {}, p50, p50 * 2, 0, 0.0, 0, 0.5, 0.5)


def sweep(settings: list[SettingResult], baseline: str, recipes=RECIPES, ns=(10, 25), ks=(5, 10)) -> SweepResult:
    return SweepResult(
        spec=SweepSpec("demo", ns, ks, RERANKERS, recipes=recipes),
        eval_set={},
        created_at="2026-11-28",
        settings=tuple(settings),
        rows=(),
        queries={},
        qrels={},
        facts={},
        stats=SweepStats(0, 0, 0, 0, 0, 0.0),
        baseline=baseline,
    )


def four_recipes() -> SweepResult:
    rng = np.random.default_rng(0)
    settings = [
        setting(recipe, reranker, n, k, float(rng.uniform(0.3, 0.6)), float(rng.uniform(10, 150)))
        for recipe in RECIPES
        for reranker in RERANKERS
        for n in (10, 25)
        for k in (5, 10)
    ]
    return sweep(settings, "graphiti-default none N=25 k=10")


def test_four_recipes_heatmap_titles_do_not_overlap() -> None:
    fig = heatmaps(four_recipes(), "ndcg@k")
    titles = [a for a in fig.layout.annotations if a.text and "+" in a.text]
    assert len(titles) == len(RECIPES) * len(RERANKERS)
    assert len({(round(a.x, 3), round(a.y, 3)) for a in titles}) == len(titles)  # each at a place of its own
    for a in titles:
        for b in titles:
            if a is b or abs(a.y - b.y) > 0.02:  # titles on different rows cannot collide sideways
                continue
            gap_px = abs(a.x - b.x) * WIDTH_PX
            assert gap_px > (len(a.text) + len(b.text)) / 2 * TITLE_CHAR_PX, (a.text, b.text, gap_px)


def test_the_pareto_legend_is_beside_the_plot_not_over_its_x_axis() -> None:
    legend = pareto(four_recipes(), "ndcg@k", "graphiti-default none N=25 k=10").layout.legend
    assert legend.x >= 1 and legend.xanchor == "left"  # right of the plot area (paper x 0..1)
    assert legend.y is None or legend.y >= 0  # never below the plot, where the x axis and its title are


def _front_points(fig: go.Figure) -> set[tuple[float, float]]:
    front = next(t for t in fig.data if t.name == "Pareto front")
    return set(zip(front.x, front.y, strict=True))


def _star(fig: go.Figure) -> tuple[float, float]:
    star = next(t for t in fig.data if t.name.startswith("recommended: "))
    return star.x[0], star.y[0]


def test_the_recommended_star_is_a_point_of_the_front_drawn() -> None:
    # the baseline, computed beside a grid that lacks it, is recommended; nothing is faster or better: it is on
    # the front, which the old chart took over the grid alone (the star then sat off the line)
    grid = [setting("vector", "local", 25, 5, 0.50, 80.0), setting("vector", "none", 25, 5, 0.45, 30.0)]
    baseline = setting("graphiti-default", "none", 50, 10, 0.55, 20.0, in_grid=False)
    result = sweep([*grid, baseline], baseline.key, recipes=("vector",), ns=(25,), ks=(5,))
    fig = pareto(result, "ndcg@k", baseline.key)
    assert _star(fig) == (20.0, 0.55)  # where the setting is: its own p50 and metric
    assert _star(fig) in _front_points(fig)
    assert "off the front" not in fig.layout.title.text


def test_a_star_off_the_front_is_said_why() -> None:
    # the baseline is kept (nothing beats it significantly) though a faster and better setting was measured
    better = setting("vector", "local", 25, 5, 0.60, 10.0)
    baseline = setting("vector", "none", 25, 5, 0.50, 30.0)
    fig = pareto(
        sweep([better, baseline], baseline.key, recipes=("vector",), ns=(25,), ks=(5,)), "ndcg@k", baseline.key
    )
    assert _star(fig) == (30.0, 0.50) and _star(fig) not in _front_points(fig)
    assert "off the front: the baseline, kept: no setting beats it significantly" in fig.layout.title.text


def _table(ns: list[int], epochs: list[float] | None = None):
    rows = [
        (i, (epochs or [1_764_300_000.0 + 60 * i for i in range(len(ns))])[i], n, "local", "", *[10.0] * len(STAGES))
        for i, n in enumerate(ns)
    ]
    return timing_table(rows)


def test_latency_by_n_is_categorical_with_the_ns_present() -> None:
    fig = latency_by_candidates(_table([50, 50, 50]))
    assert {axis.type for axis in (fig.layout.xaxis, fig.layout.xaxis2, fig.layout.xaxis3)} == {"category"}
    p50 = [t for t in fig.data if t.name == "p50"]
    assert len(p50) == 3 and all(list(t.x) == ["50"] for t in p50)  # one N: one category, no 49.5 or 50.5
    two = latency_by_candidates(_table([10, 50, 50]))
    assert list(next(t for t in two.data if t.name == "p50").x) == ["10", "50"]  # in order, nothing between


def test_the_legend_leaves_room_for_the_day_under_a_time_axis() -> None:
    fig = latency_over_time(_table([50, 50]))
    legend = fig.layout.legend
    # at the figure's own bottom, below a margin that holds two lines of ticks and the axis title; on the plot's
    # paper at y = -0.3 it covered the day printed under the first tick
    assert legend.yref == "container" and legend.y == 0 and legend.yanchor == "bottom"
    assert fig.layout.margin.b >= 100
