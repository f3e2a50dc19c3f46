"""The sidebar every page shares: the deal, the backend and its health, the embedder."""

from __future__ import annotations

import streamlit as st

from dashboard.runtime import get_lab, run
from pipeline.graph.deals import DealInfo, list_deals
from pipeline.lab import Lab

DEAL_KEY = "sidebar.deal"


def render_sidebar() -> tuple[Lab, DealInfo | None]:
    """Draw the sidebar; return the lab and the selected deal (None when no deal exists yet)."""
    lab = get_lab()
    deals = run(list_deals(lab.backend))
    with st.sidebar:
        deal = None
        if deals:
            by_id = {d.group_id: d for d in deals}
            wanted = st.query_params.get("deal")
            if wanted in by_id and DEAL_KEY not in st.session_state:
                st.session_state[DEAL_KEY] = wanted
            group_id = st.selectbox("Deal", list(by_id), key=DEAL_KEY, format_func=lambda g: f"{g} — {by_id[g].name}")
            deal = by_id[group_id]
        else:
            st.warning("No deal loaded yet. Run `python -m pipeline seed-demo`.")
        st.caption(f"**Graph:** {lab.backend.label}  \n`{lab.backend.location}` · healthy")
        st.caption(f"**Embedder:** {lab.embedder.info.describe()}")
        if deal and deal.embedder != lab.embedder.info:
            st.error(f"This deal was built with {deal.embedder.describe()}; queries are refused.")
    return lab, deal
