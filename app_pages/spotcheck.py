import streamlit as st

from dashboard.common.sidebar import page_context
from dashboard.spotcheck.view import render_spotcheck_page

st.title("Citation spot-check")
st.caption("Check that what the agent would cite supports the fact: sample a queue, give verdicts, see the rates.")

lab, deal = page_context()
if deal is not None:
    render_spotcheck_page(lab, deal.group_id)
