"""Plotly figures of a sweep: metric heatmaps (N x k per reranker) and the quality / latency / cost view."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dashboard.common.text import chart
from pipeline.evaluation.records import SweepResult, setting_key
from pipeline.rerankers.specs import colour


def heatmaps(result: SweepResult, metric: str) -> go.Figure:
    """One heatmap per recipe and reranker: rows N, columns k, cells the metric (same colour scale for all)."""
    recipes = list(result.spec.recipes)
    panels = [(recipe, reranker) for recipe in recipes for reranker in result.spec.rerankers]
    titles = [chart(r if len(recipes) == 1 else f"{recipe} + {r}") for recipe, r in panels]
    ns, ks = list(result.spec.candidates), list(result.spec.top_ks)
    grid = {s.key: s for s in result.grid}
    values = [s.metrics[metric] for s in result.grid]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=titles, horizontal_spacing=0.08)
    for col, (recipe, reranker) in enumerate(panels, start=1):
        z, text = [], []
        for n in ns:
            row, labels = [], []
            for k in ks:
                s = grid.get(setting_key(recipe, reranker, n, k))
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
                showscale=col == len(panels),
                hovertemplate=f"{titles[col - 1]}<br>%{{y}}, %{{x}}<br>{metric} %{{z:.4f}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    note = " (of the top k each setting hands on: columns differ by k)" if metric.endswith("@k") else ""
    fig.update_layout(
        title=f"{metric} by candidates N and top-k, per {'recipe and ' if len(recipes) > 1 else ''}reranker{note}",
        height=120 + 60 * len(ns),
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
    )
    return fig


def pareto(result: SweepResult, metric: str, recommended: str, front: set[str]) -> go.Figure:
    """Quality (y) against p50 latency (x); marker size grows with cost; the Pareto front joined by a
    line; the recommended setting starred."""
    fig = go.Figure()
    recipes = list(result.spec.recipes)
    symbols = ("circle", "diamond", "square", "triangle-up", "cross", "x", "star-square")
    for recipe, reranker in [(recipe, r) for recipe in recipes for r in result.spec.rerankers]:
        points = [s for s in result.grid if s.reranker == reranker and s.recipe == recipe]
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
    on_front = sorted((s for s in result.grid if s.key in front), key=lambda s: s.p50_ms)
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
    rec = result.setting(recommended)
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
    fig.update_layout(
        title=f"Quality vs latency vs cost ({metric}; marker size: cost)",
        xaxis_title="p50 latency (ms)",
        yaxis_title=metric,
        height=420,
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        legend={"orientation": "h", "yanchor": "bottom", "y": -0.35, "x": 0},
    )
    return fig
