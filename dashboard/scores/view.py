"""What the Scores page shows for one run, built once per run in the session: its table, CSV and charts.

A widget change that keeps the run (or a plain rerun) would otherwise rebuild three Plotly figures, the
page's main cost (~170 ms); the run object and its judged grades are the key (`is`), held here so they stay
the same objects. The query's judged grades are looked up once per query in the session (`query_grades`); the
Plotly figures are pure functions of the candidates table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from dashboard.common.exports import csv_bytes
from dashboard.common.page_state.memo import SessionMemo
from dashboard.common.runtime import run as wait
from dashboard.common.text import HOVER_CHARS, chart
from dashboard.scores.rank_chart import rank_changes
from dashboard.scores.table import candidates_frame
from pipeline.api import Lab
from pipeline.api.models import Recipe, RetrievalRun

VIEWS = SessionMemo("scores.view", keep=1)  # the page shows one run at a time
JUDGED = SessionMemo("scores.judged", keep=40)


def query_grades(lab: Lab, run: RetrievalRun) -> dict[str, int] | None:
    """fact uuid -> grade, or None when the query is not judged; looked up once per query in the session."""

    def read() -> dict[str, int] | None:
        judged = wait(lab.comparison.query_judgments(run.group_id, run.query))
        return judged.grades if judged is not None and judged.scorable else None

    return JUDGED.get((run.group_id, run.query), read)


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


@dataclass(frozen=True)
class ScoresView:
    frame: pd.DataFrame
    csv: bytes
    charts: tuple[go.Figure, go.Figure, go.Figure] | None  # scatter, rank changes, histogram: when reranked


def scores_view(run: RetrievalRun, recipe: Recipe, grades: Mapping[str, int] | None = None) -> ScoresView:
    """`recipe` is the run's (the setting's): its methods and fusion name the table's columns."""

    def build() -> tuple[RetrievalRun, Mapping[str, int] | None, ScoresView]:
        frame = candidates_frame(run, grades, recipe)
        charts = (
            (score_scatter(frame, recipe.fusion_label), rank_changes(run.reranked, run.top_k), rerank_histogram(frame))
            if run.rerank_used
            else None
        )
        return run, grades, ScoresView(frame, csv_bytes(frame), charts)

    # keyed by identity: the entry holds the run and grades themselves, so their ids stay theirs while it is kept
    return VIEWS.get((id(run), id(grades)), build)[2]
