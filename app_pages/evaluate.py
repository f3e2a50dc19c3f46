import streamlit as st

from dashboard.common.sidebar import page_context
from dashboard.evaluate.experiments import pick_result, render_comparison
from dashboard.evaluate.jobs_view import follow_jobs
from dashboard.evaluate.sweep_form import eval_sets, render_query_sets, sweep_controls
from dashboard.evaluate.view import render_result

st.title("Evaluate & tune")
st.caption("Sweep candidates N, top-k and rerankers over labelled queries: metrics, significance, a recommendation.")

lab, deal = page_context()
if deal is not None:
    sets = eval_sets(lab, deal.group_id)
    render_query_sets(sets)
    if sets:
        sweep_controls(lab, deal.group_id, sets)
        follow_jobs(lab, deal.group_id)
        result, saved_as = pick_result(lab, deal.group_id)
        if result is not None and result.spec.group_id == deal.group_id:
            render_result(lab, result, saved_as)
        render_comparison(lab, deal.group_id)
