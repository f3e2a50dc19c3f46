"""Plotly figures for the spot-check summary (pure functions of the pipeline's rate rows)."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from dashboard.common.text import TICK_CHARS, chart
from pipeline.api.models import VERDICTS, RateRow

COLOURS = {
    "supported": "#2e9e5b",
    "partially_supported": "#f0ad4e",
    "not_supported": "#d9534f",
    "wrong_source": "#8e6cc2",
}


def _rate_label(row: RateRow) -> str:
    low, high = row.supported.interval or (0.0, 1.0)
    return f"{row.supported_rate:.0%} ({low:.0%}-{high:.0%})"


def verdict_bars(rows: Sequence[RateRow], title: str) -> go.Figure:
    """One horizontal stacked bar per channel / document: the share of each verdict, the supported rate and its
    95% Wilson interval labelled."""
    labels = [f"{chart(r.key.replace('_', ' '), TICK_CHARS)} (n={r.verdicts})" for r in rows]
    fig = go.Figure()
    for verdict, name in VERDICTS.items():
        fig.add_trace(
            go.Bar(
                y=labels,
                x=[r.counts.get(verdict, 0) / r.verdicts if r.verdicts else 0 for r in rows],
                customdata=[r.counts.get(verdict, 0) for r in rows],
                name=name,
                orientation="h",
                text=[_rate_label(r) if verdict == "supported" and r.counts.get(verdict) else "" for r in rows],
                textposition="inside",
                marker_color=COLOURS[verdict],
                hovertemplate=f"{name}: %{{customdata}} (%{{x:.0%}})<extra></extra>",
            )
        )
    fig.update_layout(
        barmode="stack",
        title={"text": title, "font": {"size": 15}},
        xaxis={"tickformat": ".0%", "range": [0, 1]},
        yaxis={"autorange": "reversed"},
        legend={"orientation": "h", "x": 0, "y": -0.2, "yanchor": "top", "traceorder": "normal"},
        height=max(260, 170 + 40 * len(rows)),
        margin={"l": 10, "r": 10, "t": 40, "b": 90},
    )
    return fig
