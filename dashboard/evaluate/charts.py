"""Plotly figures of a sweep: metric heatmaps (N x k per reranker) and the quality / latency / cost view."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.common.text import chart
from pipeline.api import colour
from pipeline.api.models import Setting, SweepResult

PANEL_PX = 90  # a panel's title and k labels; then ROW_PX for each of its N rows
ROW_PX = 28


def heatmaps(result: SweepResult, metric: str) -> go.Figure:
    """One heatmap per recipe and reranker: rows N, columns k, cells the metric (same colour scale for all). The
    panels are a grid, a row per recipe and a column per reranker: in one row, four recipes by two rerankers made
    eight panels whose titles ran into one another."""
    recipes, rerankers = list(result.spec.recipes), list(result.spec.rerankers)
    panels = [(recipe, reranker) for recipe in recipes for reranker in rerankers]
    titles = [chart(r if len(recipes) == 1 else f"{recipe} + {r}") for recipe, r in panels]
    ns, ks = list(result.spec.candidates), list(result.spec.top_ks)
    grid = {s.key: s for s in result.grid}
    values = [s.metrics[metric] for s in result.grid]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    rows, cols = len(recipes), len(rerankers)
    height = 80 + rows * (PANEL_PX + ROW_PX * len(ns))
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=titles,
        horizontal_spacing=0.08,
        vertical_spacing=min(0.3, 60 / height) if rows > 1 else 0.0,  # room for the next row's title
    )
    for index, (recipe, reranker) in enumerate(panels):
        panel_row, panel_col = divmod(index, cols)
        z, text = [], []
        for n in ns:
            row, labels = [], []
            for k in ks:
                s = grid.get(Setting(result.spec.recipe(recipe), n, reranker, k).key)
                row.append(s.metrics[metric] if s else None)
                labels.append(f"{s.metrics[metric]:.3f}" if s else "k > N")
            z.append(row)
            text.append(labels)
        fig.add_trace(
            go.Heatmap(
                z=z,
                x=[f"k={k}" for k in ks],
                y=[f"N={n}" for n in ns],
                text=text,
                texttemplate="%{text}",
                zmin=low,
                zmax=high,
                colorscale="Blues",
                showscale=index == 0,  # one colour bar: every panel has the same scale
                colorbar={"len": min(1.0, 400 / height), "y": 1, "yanchor": "top"},
                hovertemplate=f"{titles[index]}<br>%{{y}}, %{{x}}<br>{metric} %{{z:.4f}}<extra></extra>",
            ),
            row=panel_row + 1,
            col=panel_col + 1,
        )
    note = " (of the top k each setting hands on: columns differ by k)" if metric.endswith("@k") else ""
    fig.update_layout(
        title=f"{metric} by candidates N and top-k, per {'recipe and ' if len(recipes) > 1 else ''}reranker{note}",
        height=height,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
    )
    return fig


def pareto(result: SweepResult, metric: str, recommended: str, front: set[str] | None = None) -> go.Figure:
    """Quality (y) against p50 latency (x); marker size grows with cost; the Pareto front joined by a
    line; the recommended setting starred at its own quality and p50.

    The front is taken over the points drawn, the recommended setting among them (the baseline, computed beside a
    grid that lacks it, included), on the same metric, p50 and cost. The rule that recommends is not the front's
    (a setting within noise of the best that hands on fewer facts, or the baseline kept when nothing beats it
    significantly): when the star is off the front, the subtitle says why."""
    fig = go.Figure()
    recipes = list(result.spec.recipes)
    rec = result.setting(recommended)
    beside = [] if any(s.key == rec.key for s in result.grid) else [rec]
    drawn = [*result.grid, *beside]
    if front is None:
        front = result.pareto(metric, beside)
    symbols = ("circle", "diamond", "square", "triangle-up", "cross", "x", "star-square")
    for recipe, reranker in [(recipe, r) for recipe in recipes for r in result.spec.rerankers]:
        points = [s for s in result.grid if s.setting.reranker == reranker and s.setting.recipe.key == recipe]
        fig.add_trace(
            go.Scatter(
                name=chart(reranker if len(recipes) == 1 else f"{recipe} + {reranker}"),
                x=[s.p50_ms for s in points],
                y=[s.metrics[metric] for s in points],
                mode="markers",
                marker={
                    "color": colour(reranker),  # from the reranker's spec
                    "symbol": symbols[recipes.index(recipe) % len(symbols)],
                    "size": [12 + min(20, (s.cost_usd or 0) * 50) for s in points],
                },
                text=[chart(s.key) for s in points],
                customdata=[[s.cost_usd or 0.0, s.p_value if s.p_value is not None else float("nan")] for s in points],
                hovertemplate="%{text}<br>" + metric + " %{y:.4f}<br>p50 %{x:.0f} ms<br>cost $%{customdata[0]:.4f}"
                "<br>p vs baseline %{customdata[1]:.4f}<extra></extra>",
            )
        )
    on_front = sorted((s for s in drawn if s.key in front), key=lambda s: (s.p50_ms, -s.metrics[metric]))
    fig.add_trace(
        go.Scatter(
            name="Pareto front",
            x=[s.p50_ms for s in on_front],
            y=[s.metrics[metric] for s in on_front],
            mode="lines",
            line={"color": "#1f2937", "dash": "dot"},
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(
            name=f"recommended: {chart(rec.key)}",
            x=[rec.p50_ms],
            y=[rec.metrics[metric]],
            mode="markers",
            marker={"symbol": "star", "size": 22, "color": "#f5c518", "line": {"color": "#1f2937", "width": 1}},
            hovertemplate=f"recommended: {chart(rec.key)}<extra></extra>",
        )
    )
    title = f"Quality vs latency vs cost ({metric}; marker size: cost)"
    if rec.key not in front:
        why = (
            "the baseline, kept: no setting beats it significantly"
            if rec.key == result.baseline
            else "as good as the best within noise, and it hands on fewer facts (smaller k, then N)"
        )
        title += f"<br><sup>The recommended setting (★) is off the front: {why}.</sup>"
    fig.update_layout(
        title=title,
        xaxis_title="p50 latency (ms)",
        yaxis_title=metric,
        height=420,
        margin={"l": 10, "r": 10, "t": 80, "b": 10},
        # beside the plot, one entry a line: below it, eight recipe + reranker entries wrapped onto the x axis
        legend={"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top"},
    )
    return fig
