"""The loss X-ray's chart: one stacked bar per setting, its judged-relevant facts split by where they were lost."""

from __future__ import annotations

import plotly.graph_objects as go

from dashboard.common.text import chart
from pipeline.api.models import LOSS_LABELS, LOSS_STAGES, SettingLosses

# lost early (grey-blue) to kept (green): the order a fact meets the stages
STAGE_COLOURS = {
    "gone": "#9e9e9e",
    "filtered": "#b0bec5",
    "unfound": "#ef9a9a",
    "floor": "#ffab91",
    "fusion": "#ffcc80",
    "min_score": "#ffe082",
    "cut_by_n": "#ce93d8",
    "reranked_out": "#90caf9",
    "kept": "#66bb6a",
}
BAR_PX = 46


def losses_figure(settings: tuple[SettingLosses, ...]) -> go.Figure:
    """Shares of each setting's relevant facts per stage (hover: the count), settings top to bottom as given."""
    names = [chart(s.label) for s in settings]
    fig = go.Figure()
    for stage in LOSS_STAGES:
        counts = [s.counts[stage] for s in settings]
        if not any(counts):
            continue
        fig.add_trace(
            go.Bar(
                y=names,
                x=[n / s.relevant if s.relevant else 0.0 for n, s in zip(counts, settings, strict=True)],
                customdata=counts,
                name=chart(LOSS_LABELS[stage]),
                orientation="h",
                marker_color=STAGE_COLOURS[stage],
                hovertemplate="%{y}<br>" + chart(LOSS_LABELS[stage]) + ": %{customdata} (%{x:.0%})<extra></extra>",
            )
        )
    fig.update_layout(
        barmode="stack",
        height=140 + BAR_PX * len(settings),
        margin={"l": 10, "r": 10, "t": 70, "b": 10},
        xaxis={"tickformat": ".0%", "range": [0, 1], "title": "share of the judged-relevant facts"},
        yaxis={"autorange": "reversed"},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "traceorder": "normal"},
    )
    return fig
