"""What the Scores page shows for one run, built once per run in the session: its table, CSV and charts.

A widget change that keeps the run (or a plain rerun) would otherwise rebuild three Plotly figures, the
page's main cost (~170 ms); the run object itself is the key (`is`), held here so it stays the same object.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.common.exports import csv_bytes
from dashboard.scores.charts import rank_slope, rerank_histogram, score_scatter
from dashboard.scores.table import candidates_frame
from pipeline.retrieval.records import RetrievalRun

KEY = "scores.view"


@dataclass(frozen=True)
class ScoresView:
    frame: pd.DataFrame
    csv: bytes
    charts: tuple[go.Figure, go.Figure, go.Figure] | None  # scatter, rank slope, histogram: when reranked


def scores_view(run: RetrievalRun) -> ScoresView:
    kept: tuple[RetrievalRun, ScoresView] | None = st.session_state.get(KEY)
    if kept is None or kept[0] is not run:
        frame = candidates_frame(run)
        charts = (score_scatter(frame), rank_slope(frame), rerank_histogram(frame)) if run.rerank_used else None
        kept = (run, ScoresView(frame, csv_bytes(frame), charts))
        st.session_state[KEY] = kept
    return kept[1]
