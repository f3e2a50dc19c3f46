import streamlit as st

from dashboard.common.grading import reviewer_input
from dashboard.common.sidebar import page_context
from dashboard.compare.form import compare_form
from dashboard.compare.view import render_comparison

st.title("Compare")
st.caption(
    "One query under two settings, side by side (by default without and with reranking): what moved, what came in, "
    "what dropped out, and, when the query is judged, which side found more of the relevant facts."
)

lab, deal = page_context()
if deal is not None:
    request = compare_form(lab, deal.group_id)
    reviewer = reviewer_input("Needed to grade the cards below")
    if request is not None:
        render_comparison(lab, request, reviewer)
