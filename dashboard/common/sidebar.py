"""The sidebar every page shares: the deal, the backend and its health, the embedder, the rerankers."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from dashboard.common.runtime import get_lab, run
from pipeline.errors import RetrievalLabError
from pipeline.graph.deals import DealInfo
from pipeline.lab import Lab
from pipeline.rerankers import reranker_choices
from pipeline.settings import Settings, get_settings
from pipeline.store import Store, open_store

DEAL_KEY = "sidebar.deal"


@dataclass(frozen=True)
class StoreOnly:
    """What pages that only read the SQLite store need while the graph backend is down."""

    settings: Settings
    store: Store


def render_sidebar(require_graph: bool = True) -> tuple[Lab | StoreOnly, DealInfo | None]:
    """Draw the sidebar; return the lab and the selected deal (None when no deal exists yet).

    When the graph backend cannot be reached, pages that need it get the one-line reason (raised to
    their `page_guard`); pages that only read the store (`require_graph=False`) keep working."""
    try:
        lab = get_lab()
    except RetrievalLabError as exc:
        st.sidebar.error(f"**Graph backend unavailable.** {exc}", icon=":material/cloud_off:")
        if require_graph:
            raise
        st.warning("The graph backend is unavailable: showing recorded runs only.", icon=":material/cloud_off:")
        settings = get_settings()
        return StoreOnly(settings, open_store(settings.resolved_data_dir)), None
    return lab, _render(lab)


def _render(lab: Lab) -> DealInfo | None:
    deals = run(lab.deals())
    with st.sidebar:
        deal = None
        if deals:
            by_id = {d.group_id: d for d in deals}
            if st.session_state.get(DEAL_KEY) not in by_id:
                st.session_state.pop(DEAL_KEY, None)
            group_id = st.selectbox(
                "Deal", list(by_id), key=DEAL_KEY, bind="query-params",
                format_func=lambda g: f"{g} — {by_id[g].name}",
            )  # fmt: skip
            deal = by_id[group_id]
        else:
            st.warning("No deal loaded yet. Run `python -m pipeline seed-demo`.")
        st.caption(f"**Graph:** {lab.backend.label} · :green[healthy]  \n`{lab.backend.location}`")
        st.caption(f"**Embedder:** {lab.embedder.info.describe()}")
        if deal and deal.embedder != lab.embedder.info:
            st.error(f"This deal was built with {deal.embedder.describe()}; queries are refused.")
        lines = [
            f"{':green[●]' if c.available else ':gray[○]'} {c.label}" + ("" if c.available else f" — {c.note}")
            for c in reranker_choices(lab.settings)
        ]
        st.caption("**Rerankers**  \n" + "  \n".join(lines))
    return deal
