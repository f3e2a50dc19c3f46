"""The Evaluate & tune page's exports of a result: the table CSV, the per-query CSV, the JSON with every ranking,
and the inspected setting as a Python module to ship into a service (`pipeline eval --export-config`)."""

from __future__ import annotations

import streamlit as st

from dashboard.common.text import file_slug, label
from dashboard.evaluate.jobs_view import NS
from pipeline.api import Lab
from pipeline.api.models import DEFAULT_METRIC, SweepResult


def render_exports(
    lab: Lab,
    result: SweepResult,
    saved_as: str | None,
    metric: str = DEFAULT_METRIC,
    exp_id: int | None = None,
    picked: str | None = None,
) -> None:
    """The table CSV now; the per-query CSV, the JSON (every ranking) and the inspected setting as a Python module
    to ship (`pipeline eval --export-config`) are built when clicked."""
    cols = st.columns([3, 1, 1, 1, 1])
    name = f"{result.spec.group_id}-sweep" if saved_as is None else saved_as
    slug = file_slug(name, "sweep")

    def whole() -> SweepResult:
        return result if exp_id is None else lab.evaluation.load_experiment(exp_id)[1]

    cols[1].download_button(
        "Table CSV",
        lab.evaluation.to_csv(result, metric).encode(),
        f"{slug}.csv",
        "text/csv",
        key=f"{NS}.csv",
        on_click="ignore",
    )
    cols[2].download_button(
        "Per-query CSV",
        lambda: lab.evaluation.per_query_csv(result).encode(),
        f"{slug}-queries.csv",
        "text/csv",
        key=f"{NS}.qcsv",
        on_click="ignore",
    )
    cols[3].download_button(
        "JSON",
        lambda: lab.evaluation.to_json(whole()).encode(),
        f"{slug}.json",
        "application/json",
        key=f"{NS}.json",
        on_click="ignore",
    )
    if picked is not None:
        experiment = f"#{exp_id} {saved_as!r}" if exp_id is not None else ""
        cols[4].download_button(
            "Setting as code",
            lambda: lab.evaluation.setting_module(result, picked, experiment).encode(),
            "retrieval_setting.py",
            "text/x-python",
            key=f"{NS}.code",
            help=f"{picked} as a Python module for your service: graphiti's SearchConfig, the search_() call at "
            "limit N and the reranker call cut to k.",
            on_click="ignore",
        )
        with st.expander(f"Setting as code: {label(picked)}", icon=":material/code:"):
            # st.code: shown as text (never Markdown), with Streamlit's own copy button
            st.code(lab.evaluation.setting_module(result, picked, experiment), language="python")
