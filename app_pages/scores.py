import streamlit as st

from dashboard.common.query_form import cached_run, query_form
from dashboard.common.sidebar import page_context
from dashboard.common.text import md
from dashboard.scores.view import scores_view

st.title("Scores")
st.caption("Every first-stage candidate with its fused score and per-method ranks, beside the reranker's score.")

lab, deal = page_context()
if deal is not None:
    request = query_form("scores", lab, deal.group_id)
    if request is not None:
        run = cached_run("scores", lab, request, request.reranker)
        if run.fallback_reason:
            st.warning(f"**The reranker fell back to first-stage order.** {md(run.fallback_reason)}")
        view = scores_view(run)  # built once per run: a rerun that keeps it reuses the table and charts
        frame = view.frame
        st.dataframe(
            frame,
            key="scores.table",
            hide_index=True,
            column_config={
                "fact": st.column_config.TextColumn(width="large"),
                "rerank_score_norm": st.column_config.ProgressColumn("rerank (0-1)", min_value=0, max_value=1),
                "uuid": None,
            },
        )
        st.download_button(
            "Export CSV",
            view.csv,
            file_name=f"candidates-{deal.group_id}.csv",
            mime="text/csv",
            key="scores.export",
            icon=":material/download:",
        )
        if view.charts is not None:
            scatter, slope, histogram = view.charts
            left, right = st.columns(2)
            left.plotly_chart(scatter, key="scores.scatter")
            right.plotly_chart(slope, key="scores.slope")
            st.plotly_chart(histogram, key="scores.hist")
        else:
            st.info("No reranker scores to chart: pick a reranker that can run here.")
