import streamlit as st

from dashboard.common.query_form import cached_pair, query_form
from dashboard.common.sidebar import page_context
from dashboard.compare.view import render_comparison

st.title("Compare")
st.caption("The same query with and without reranking, side by side: what moved, what came in, what dropped out.")

lab, deal = page_context()
if deal is not None:
    request = query_form("compare", lab, deal.group_id)
    if request is not None:
        baseline, reranked = cached_pair("compare", lab, request)
        render_comparison(lab, baseline, reranked)
