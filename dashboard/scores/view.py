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
import streamlit as st

from dashboard.common.exports import csv_bytes
from dashboard.scores.charts import rerank_histogram, score_scatter
from dashboard.scores.rank_chart import rank_changes
from dashboard.scores.table import candidates_frame
from pipeline.retrieval.recipes import Recipe, fusion_label
from pipeline.retrieval.records import RetrievalRun

KEY = "scores.view"


@dataclass(frozen=True)
class ScoresView:
    frame: pd.DataFrame
    csv: bytes
    charts: tuple[go.Figure, go.Figure, go.Figure] | None  # scatter, rank changes, histogram: when reranked


def scores_view(run: RetrievalRun, recipe: Recipe, grades: Mapping[str, int] | None = None) -> ScoresView:
    """`recipe` is the run's (the setting's): its methods and fusion name the table's columns."""
    kept: tuple[RetrievalRun, Mapping[str, int] | None, ScoresView] | None = st.session_state.get(KEY)
    if kept is None or kept[0] is not run or kept[1] is not grades:
        frame = candidates_frame(run, grades, recipe)
        charts = (
            (score_scatter(frame, fusion_label(recipe)), rank_changes(run.reranked, run.top_k), rerank_histogram(frame))
            if run.rerank_used
            else None
        )
        kept = (run, grades, ScoresView(frame, csv_bytes(frame), charts))
        st.session_state[KEY] = kept
    return kept[2]
