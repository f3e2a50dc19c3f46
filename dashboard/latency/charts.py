"""Plotly figures of stored runs' latencies (pure functions of pipeline.history.latency aggregates).

Every figure is built from aggregates (percentiles per N or per time bucket, histogram counts), never
from one trace point per run, so 10,000 runs cost the browser no more than 100. Budgets
(`BUDGETS_MS`) are drawn as dashed red lines.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.common.text import TICK_CHARS, chart
from pipeline.api.models import BUDGETED_STAGES, BUDGETS_MS, SEQUENTIAL_STAGES, TimingTable

STAGE_COLOURS = {"embed_query": "#8c9bb5", "hybrid_search": "#2f6fde", "rerank": "#e8912d", "citations": "#2e9e5b"}
P50, P95 = "#2f6fde", "#e8912d"
BUDGET = "#d9534f"
OVER_MARKER = {"symbol": "x", "size": 11, "color": BUDGET, "line": {"width": 1, "color": "#7f1d1d"}}
OVER_NAME = "over budget"
TITLES = {"hybrid_search": "Hybrid search", "rerank": "Rerank", "total": "End to end"}


# the legend sits at the bottom of the figure itself (`yref="container"`), below a margin that holds the tick labels
# (a date axis adds the day on a second line), the axis title: placed on the plot (`y` < 0 of the paper), it moved
# with the plot's height and covered the day under the first tick
LEGEND = {"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0, "x": 0}
BOTTOM = 110  # px: tick labels on two lines, the axis title and the legend's row


def _layout(fig: go.Figure, title: str, height: int = 360) -> go.Figure:
    fig.update_layout(
        title=title,
        height=height + BOTTOM,
        margin={"l": 10, "r": 10, "t": 70, "b": BOTTOM},
        bargap=0.05,
        legend=LEGEND,
    )
    return fig


def stacked_stages(medians: Mapping[str, Mapping[str, float]]) -> go.Figure:
    """One horizontal bar per reranker: the median of each stage in pipeline order, stacked; ◆ the median
    end to end. The end-to-end budget is a line when the bars come near it, a note in the title otherwise."""
    names = [chart(name, TICK_CHARS) for name in medians]
    rows = list(medians.values())
    fig = go.Figure()
    for stage in SEQUENTIAL_STAGES:
        fig.add_trace(
            go.Bar(
                name=stage,
                y=names,
                x=[row[stage] for row in rows],
                orientation="h",
                marker_color=STAGE_COLOURS[stage],
                hovertemplate="%{y}<br>" + stage + " p50 %{x:.0f} ms<extra></extra>",
            )
        )
    budget = BUDGETS_MS["total"]
    over = [row["total"] > budget for row in rows]
    fig.add_trace(
        go.Scatter(
            name="end to end (p50)",
            y=names,
            x=[row["total"] for row in rows],
            mode="markers",
            marker={
                "symbol": ["x" if o else "diamond" for o in over],
                "size": 12,
                "color": [BUDGET if o else "#1f2937" for o in over],
            },
            customdata=[" · over budget" if o else "" for o in over],
            hovertemplate="%{y}<br>end to end p50 %{x:.0f} ms%{customdata}<extra></extra>",
        )
    )
    title = "Median per stage, by reranker"
    if max((m["total"] for m in medians.values()), default=0.0) >= budget / 4:
        fig.add_vline(
            x=budget,
            line_dash="dash",
            line_color=BUDGET,
            annotation_text=f"budget {budget:.0f} ms",
            annotation_position="top left",
        )
    else:  # a line far beyond the bars would flatten them; say how far below it they are instead
        title += f"<br><sup>all far below the end-to-end budget ({budget:,.0f} ms)</sup>"
    fig.update_layout(barmode="stack", xaxis_title="ms (median of each stage)", yaxis={"autorange": "reversed"})
    return _layout(fig, title, height=150 + 50 * max(len(names), 3))


def _three_panels(title: str, x_title: str, y_title: str, shared_y: bool = False) -> go.Figure:
    fig = make_subplots(
        rows=1,
        cols=len(BUDGETED_STAGES),
        subplot_titles=[TITLES[s] for s in BUDGETED_STAGES],
        horizontal_spacing=0.06,
        shared_yaxes=shared_y,
    )
    fig.update_xaxes(title_text=x_title)
    fig.update_yaxes(title_text=y_title, col=1)
    return _layout(fig, title)


def _budget(fig: go.Figure, stage: str, col: int, vertical: bool) -> None:
    budget = BUDGETS_MS[stage]
    line = {"line_dash": "dash", "line_color": BUDGET, "row": 1, "col": col}
    text = f"budget {budget:.0f} ms"
    if vertical:
        fig.add_vline(x=budget, annotation_text=text, annotation_position="top left", **line)
    else:
        fig.add_hline(y=budget, annotation_text=text, annotation_position="top left", **line)


def histograms(table: TimingTable, bins: int = 40) -> go.Figure:
    """Latency histograms of the three budgeted stages, the budget as a vertical line."""
    fig = _three_panels("Latency histograms", "ms", "runs")
    shown_over = False  # one legend entry for the hatched bars of every panel
    for col, stage in enumerate(BUDGETED_STAGES, start=1):
        hist = table.histogram(stage, bins, BUDGETS_MS[stage])
        if hist.counts.size:
            edges = hist.edges
            middle = (edges[:-1] + edges[1:]) / 2
            over = middle > BUDGETS_MS[stage]
            for part, name, colour, pattern in ((~over, "within budget", P50, ""), (over, OVER_NAME, BUDGET, "/")):
                if not part.any():
                    continue
                fig.add_trace(
                    go.Bar(
                        x=middle[part],
                        y=hist.counts[part],
                        width=np.diff(edges)[part],
                        marker={"color": colour, "pattern": {"shape": pattern}},
                        name=name,
                        legendgroup=name,
                        showlegend=name == OVER_NAME and not shown_over,
                        customdata=np.stack([edges[:-1][part], edges[1:][part]], axis=1),
                        hovertemplate="%{customdata[0]:.0f}–%{customdata[1]:.0f} ms: %{y} runs"
                        + (" · over budget" if name == OVER_NAME else "")
                        + "<extra></extra>",
                    ),
                    row=1,
                    col=col,
                )
                shown_over = shown_over or name == OVER_NAME
            if hist.beyond:
                axis = "" if col == 1 else str(col)
                fig.add_annotation(
                    text=f"+{hist.beyond} slower than {edges[-1]:,.0f} ms",
                    showarrow=False,
                    xref=f"x{axis} domain",
                    yref=f"y{axis} domain",
                    x=1,
                    y=0.9,
                    xanchor="right",
                    font={"color": BUDGET},
                )
        _budget(fig, stage, col, vertical=True)
    return fig


def _percentile_lines(fig: go.Figure, x: np.ndarray, p50: np.ndarray, p95: np.ndarray, col: int, budget: float) -> None:
    for name, values, colour in (("p50", p50, P50), ("p95", p95, P95)):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=values,
                mode="lines+markers",
                name=name,
                line={"color": colour},
                legendgroup=name,
                showlegend=col == 1,
                hovertemplate=name + " %{y:.0f} ms<extra></extra>",
            ),
            row=1,
            col=col,
        )
    points = [
        (xv, yv, name)
        for name, values in (("p50", p50), ("p95", p95))
        for xv, yv in zip(x, values, strict=True)
        if yv > budget  # NaN (no run in a bucket) is never over
    ]
    if points:
        fig.add_trace(
            go.Scatter(
                x=[p[0] for p in points],
                y=[p[1] for p in points],
                mode="markers",
                name=OVER_NAME,
                marker=OVER_MARKER,
                legendgroup=OVER_NAME,
                showlegend=not any(t.name == OVER_NAME and t.showlegend for t in fig.data),
                customdata=[p[2] for p in points],
                hovertemplate="%{customdata} %{y:.0f} ms · over budget<extra></extra>",
            ),
            row=1,
            col=col,
        )


def latency_by_candidates(table: TimingTable) -> go.Figure:
    """p50 / p95 for each N the runs used, one panel per budgeted stage, the budget as a horizontal line. The axis
    is categorical, the Ns present in order: a numeric axis around a single N drew 49, 49.5, ... 51, Ns never run."""
    fig = _three_panels("Latency by candidates N", "N", "ms")
    for col, stage in enumerate(BUDGETED_STAGES, start=1):
        series = table.by_candidates(stage)
        ns = np.array([str(n) for n in series.x], dtype=object)
        _percentile_lines(fig, ns, series.p50, series.p95, col, BUDGETS_MS[stage])
        _budget(fig, stage, col, vertical=False)
    fig.update_xaxes(type="category")
    return fig


def latency_over_time(table: TimingTable) -> go.Figure:
    """p50 / p95 per time bucket (1 min ... 1 week, whichever gives at most 60 buckets)."""
    fig = _three_panels("Latency over time", "", "ms")
    for col, stage in enumerate(BUDGETED_STAGES, start=1):
        series = table.over_time(stage)
        when = (series.x * 1000).astype("datetime64[ms]")
        _percentile_lines(fig, when, series.p50, series.p95, col, BUDGETS_MS[stage])
        _budget(fig, stage, col, vertical=False)
    fig.update_xaxes(title_text="UTC")
    return fig
