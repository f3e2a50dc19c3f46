import streamlit as st

from dashboard.audit.view import render_filters, render_log
from dashboard.common.sidebar import store_context

st.title("Audit log")
st.caption(
    "Every admin action: corrections and their undo, merges, undone merges and rejected pairs, demo resets and deal "
    "replacements, wrong admin secrets, interrupted actions rolled back or completed. Who, when, what changed."
)

lab, deal = store_context()
where = render_filters(lab.store, deal.group_id if deal else None)
render_log(lab.store, where)
