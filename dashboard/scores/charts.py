"""Plotly figures of one run's candidates (pure functions of the candidates table)."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from dashboard.common.text import HOVER_CHARS, chart


def score_scatter(frame: pd.DataFrame, fusion: str = "RRF") -> go.Figure:
    data = frame.assign(
        top_k=frame["in_top_k_after"].map({True: "in top-k after rerank", False: "outside"}),
        fact=frame["fact"].map(lambda f: chart(f, HOVER_CHARS)),
    )
    fig = px.scatter(
        data,
        x="fused_score",
        y="rerank_score",
        color="top_k",
        hover_data=["rank_before", "rank_after", "fact"],
        color_discrete_map={"in top-k after rerank": "#2f6fde", "outside": "#b0b7c3"},
        labels={"fused_score": f"first-stage fused score ({fusion})", "rerank_score": "reranker score", "top_k": ""},
        title="First-stage score vs reranker score",
    )
    fig.update_traces(marker={"size": 9})
    return fig


def rerank_histogram(frame: pd.DataFrame) -> go.Figure:
    return px.histogram(
        frame,
        x="rerank_score",
        nbins=20,
        color="in_top_k_after",
        labels={"rerank_score": "reranker score", "in_top_k_after": "in top-k"},
        title="Distribution of reranker scores",
    )
