"""The judged grades of the Scores page's query (labelled set or relevance verdicts), kept per session."""

from __future__ import annotations

import streamlit as st

from dashboard.common.runtime import run as wait
from pipeline.comparison.judged import query_judgments
from pipeline.lab import Lab
from pipeline.retrieval.records import RetrievalRun

KEY = "scores.judged"


def query_grades(lab: Lab, run: RetrievalRun) -> dict[str, int] | None:
    """fact uuid -> grade, or None when the query is not judged; looked up once per query in the session."""
    memo: dict = st.session_state.setdefault(KEY, {})
    key = (run.group_id, run.query)
    if key not in memo:
        if len(memo) > 40:
            memo.clear()
        judged = wait(query_judgments(lab, run.group_id, run.query))
        memo[key] = judged.grades if judged is not None and judged.scorable else None
    return memo[key]
