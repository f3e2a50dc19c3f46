import streamlit as st

from dashboard.common.sidebar import page_context
from dashboard.spotcheck.view import render_spotcheck_page

st.title("Citation spot-check")
st.caption(
    "Check what the agent would cite: does the fact answer the query, and does its source support it? "
    "Sample a queue, answer, see the rates, the reviewers' agreement and what to adjudicate."
)

lab, deal = page_context()
if deal is not None:
    render_spotcheck_page(lab, deal.group_id)
