import streamlit as st

from dashboard.common.run_filters import any_runs, run_filter_controls
from dashboard.common.sidebar import store_context
from dashboard.latency.view import COLD_KEY, cached_latency_data, render_latency

st.title("Latency & cost")
st.caption("Per-stage p50 / p95 / p99 and reranking cost over every recorded run, against the latency budgets.")

lab, deal = store_context()
if any_runs(lab.store):
    flt = run_filter_controls("latency", lab.store, deal.group_id if deal else None)
    data = cached_latency_data(lab.store, lab.settings, flt, bool(st.session_state.get(COLD_KEY)))
    if not len(data.table):
        st.info("No run matches these filters.")
    else:
        render_latency(data)
