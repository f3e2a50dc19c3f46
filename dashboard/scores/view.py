"""What the Scores page shows for one run, built once per run in the session: its table, CSV and charts.

A widget change that keeps the run (or a plain rerun) would otherwise rebuild three Plotly figures, the
page's main cost (~170 ms); the run object and its judged grades are the key (`is`), held here so they stay
the same objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from dashboard.common.exports import csv_bytes
from dashboard.common.page_state.memo import SessionMemo
from dashboard.scores.charts import rerank_histogram, score_scatter
from dashboard.scores.rank_chart import rank_changes
from dashboard.scores.table import candidates_frame
from pipeline.retrieval.recipes import Recipe, fusion_label
from pipeline.retrieval.records import RetrievalRun

VIEWS = SessionMemo("scores.view", keep=1)  # the page shows one run at a time


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
            (score_scatter(frame, fusion_label(recipe)), rank_changes(run.reranked, run.top_k), rerank_histogram(frame))
            if run.rerank_used
            else None
        )
        return run, grades, ScoresView(frame, csv_bytes(frame), charts)

    # keyed by identity: the entry holds the run and grades themselves, so their ids stay theirs while it is kept
    return VIEWS.get((id(run), id(grades)), build)[2]
