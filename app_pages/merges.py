import streamlit as st

from dashboard.common.admin import admin_actor
from dashboard.common.sidebar import page_context
from dashboard.merges.view import render_merges_page

st.title("Entity merges")
st.caption("Every recorded merge with the facts each alias brought, scored duplicate candidates, and merge / undo.")

lab, deal = page_context()
actor = admin_actor(lab.settings)
if deal is not None:
    render_merges_page(lab, deal, actor)
