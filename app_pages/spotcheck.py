import streamlit as st

from dashboard.common.guard import page_guard
from dashboard.common.sidebar import render_sidebar
from dashboard.spotcheck.view import render_spotcheck_page

st.title("Citation spot-check")
st.caption("Check that what the agent would cite supports the fact: sample a queue, give verdicts, see the rates.")

with page_guard():
    lab, deal = render_sidebar()
    if deal is not None:
        render_spotcheck_page(lab, deal.group_id)
