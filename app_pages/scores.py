import streamlit as st

from dashboard.common.links import evidence_params, scores_to_compare
from dashboard.common.query_form import query_form, setting_runs
from dashboard.common.recipes import pool_note
from dashboard.common.sidebar import page_context
from dashboard.common.text import md
from dashboard.scores.path import render_path
from dashboard.scores.table import show_candidates
from dashboard.scores.view import query_grades, scores_view

st.title("Scores")
st.caption(
    "Every first-stage candidate with its fused score and per-method ranks, beside the reranker's score, its judged "
    "grade and the top-k cut; pick one to see where its rank came from."
)

lab, deal = page_context()
if deal is not None:
    request = query_form("scores", lab, deal.group_id)
    if request is not None:
        setting = request.setting
        (run,) = setting_runs("scores", lab, request.query, deal.group_id, [setting])
        st.page_link(
            "app_pages/compare.py",
            label="This query on Compare, with and without reranking",
            icon=":material/compare_arrows:",
            query_params=scores_to_compare(deal.group_id, request.query, setting),
        )
        if (note := pool_note(setting, len(run.candidates))) is not None:
            st.caption(md(note))
        if run.fallback_reason:
            st.warning(f"**The reranker fell back to first-stage order.** {md(run.fallback_reason)}")
        grades = query_grades(lab, run)
        # built once per run: a rerun that keeps it reuses the table and charts
        view = scores_view(run, setting.recipe, grades)
        frame = view.frame
        st.caption(
            f"Rows in final order; the first {run.top_k} (k) are handed on, the Top k column marks the cut. "
            + ("Judged grades: 0-3, — = not judged." if grades is not None else "This query is not judged.")
        )
        show_candidates(frame, "scores.table", setting.recipe)
        st.download_button(
            "Export CSV",
            view.csv,
            file_name=f"candidates-{deal.group_id}.csv",
            mime="text/csv",
            key="scores.export",
            icon=":material/download:",
            on_click="ignore",
        )
        picked = render_path(run, setting.recipe)
        if picked is not None:
            st.page_link(
                "app_pages/evidence.py",
                label="This candidate's evidence: its entities, versions and sources",
                icon=":material/hub:",
                query_params=evidence_params(deal.group_id, picked.candidate.uuid, query=request.query, side=setting),
            )
        if view.charts is not None:
            scatter, slope, histogram = view.charts
            st.plotly_chart(slope, key="scores.slope")  # full width: its facts label both sides
            left, right = st.columns(2)
            left.plotly_chart(scatter, key="scores.scatter")
            right.plotly_chart(histogram, key="scores.hist")
        else:
            st.info("No reranker scores to chart: pick a reranker that can run here.")
