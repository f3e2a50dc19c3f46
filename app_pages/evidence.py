import streamlit as st

from dashboard.common.deal_state import deal_state
from dashboard.common.sidebar import page_context
from dashboard.evidence.view import focus, render

st.title("Evidence")
st.caption(
    "A fact's neighbourhood: its two entities, their other facts (current and superseded), its versions over time, "
    "the episodes that cite it, and for a query, which methods found it at which rank. Click a node to move there."
)

lab, deal = page_context()
if deal is not None:
    state = deal_state(lab, deal)
    uuid = focus(lab, deal.group_id, state)
    if uuid is None:
        st.info("This deal has no facts yet.")
    else:
        render(lab, deal.group_id, state, uuid)
