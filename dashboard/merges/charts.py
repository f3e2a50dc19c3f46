"""Plotly figure of the merge threshold's precision and recall (a pure function of the PR points)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from pipeline.api.models import PRPoint


def precision_recall_chart(points: Sequence[PRPoint], threshold: float, default: float) -> go.Figure:
    xs = [p.threshold for p in points]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[p.precision for p in points],
            name="precision",
            mode="lines",
            line={"color": "#2f6fde", "width": 3},
            connectgaps=False,
        )
    )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[p.recall for p in points],
            name="recall",
            mode="lines",
            line={"color": "#2e9e5b", "width": 3, "dash": "dot"},
        )
    )
    fig.add_vline(
        x=default,
        line={"color": "#d9534f", "dash": "dash"},
        annotation_text=f"default {default:.2f}",
        annotation_position="bottom left",
        annotation_font={"color": "#d9534f"},
    )
    if abs(threshold - default) > 1e-9:
        fig.add_vline(
            x=threshold,
            line={"color": "#6c757d", "dash": "dot"},
            annotation_text=f"slider {threshold:.2f}",
            annotation_position="bottom right",
            annotation_font={"color": "#6c757d"},
        )
    fig.update_layout(
        title="Auto-merge at score ≥ threshold: precision and recall on the labelled pairs",
        xaxis_title="threshold",
        yaxis_title="",
        yaxis_range=[0, 1.05],
        yaxis_tickformat=".0%",
        xaxis_range=[0.3, 1.0],
        legend={"orientation": "h", "y": -0.2},
        height=380,
        margin={"t": 60},
    )
    return fig
