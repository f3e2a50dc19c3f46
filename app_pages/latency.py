import streamlit as st

from dashboard.common.run_filters import run_filter_controls
from dashboard.common.sidebar import store_context
from dashboard.latency.view import latency_data, render_latency
from pipeline.history.repo import count_runs

st.title("Latency & cost")
st.caption("Per-stage p50 / p95 / p99 and reranking cost over every recorded run, against the latency budgets.")

lab, deal = store_context()
if count_runs(lab.store) == 0:
    st.info(
        "No runs recorded yet: run a query on Compare or Scores, or `python -m pipeline query` / "
        "`python -m benchmarks bench`."
    )
else:
    flt = run_filter_controls("latency", lab.store, deal.group_id if deal else None)
    data = latency_data(lab.store, lab.settings, flt)
    if not len(data.table):
        st.info("No run matches these filters.")
    else:
        render_latency(data)
