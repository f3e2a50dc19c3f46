import streamlit as st

from dashboard.guard import page_guard
from dashboard.sidebar import render_sidebar
from dashboard.spotcheck_view import render_spotcheck_page

st.title("Citation spot-check")
st.caption("Check that what the agent would cite supports the fact: sample a queue, give verdicts, see the rates.")

with page_guard():
    lab, deal = render_sidebar()
    if deal is not None:
        render_spotcheck_page(lab, deal.group_id)
