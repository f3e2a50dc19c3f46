import streamlit as st

from dashboard.common.admin import admin_actor
from dashboard.common.deal_state import deal_state
from dashboard.common.sidebar import page_context
from dashboard.timeline.admin import (
    FIX_TAB,
    TAB_KEY,
    render_correction,
    restore_selection,
    take_linked_correction,
)
from dashboard.timeline.audit import render_invalidations
from dashboard.timeline.view import render_as_of, render_supersessions, render_timeline, selection_controls

st.title("Timeline")
st.caption("Facts over time: when each was valid, what superseded it, what was true on a date, and corrections.")

lab, deal = page_context()
actor = admin_actor(lab.settings)
if deal is not None:
    restore_selection()  # after "Correct" or "Undo": the same relation or entity, the same tab
    take_linked_correction()  # opened from the audit log on a correction: its undo is picked
    state = deal_state(lab, deal)  # the page's graph reads are cached per deal state
    selection = selection_controls(lab, deal.group_id, state)
    tl = render_timeline(lab, deal.group_id, state, selection, actor is not None) if selection else None
    if tl is None:
        st.info("Pick an entity or a relation, or type a topic query, to draw its timeline.")
    # keyed and in the URL, so the open tab is kept across an admin action's rerun and a reload
    as_of_tab, list_tab, audit_tab, fix_tab = st.tabs(
        ["As of a date", "Supersession list", "Invalidation audit", FIX_TAB],
        key=TAB_KEY,
        on_change="rerun",
        bind="query-params",
    )
    with as_of_tab:
        if selection and tl:
            render_as_of(lab, deal.group_id, state, selection, tl)
    with list_tab:
        render_supersessions(lab, deal.group_id, state)
    with audit_tab:
        render_invalidations(lab, deal.group_id, state)
    with fix_tab:
        render_correction(lab, deal.group_id, tl, actor)
