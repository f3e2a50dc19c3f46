"""The sidebar every page shares: the deal, the backend and its health, the embedder, the rerankers.

The entry script draws it once per run, before the page (`draw_sidebar`). A page reads what it picked
with `page_context()`, or `store_context()` when the page only reads the SQLite store and so keeps
working while the graph backend is down.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from dashboard.common.deal_picker import DEAL_KEY as DEAL_KEY  # the URL key, which links import from here
from dashboard.common.deal_picker import deal_caption, pick_deal
from dashboard.common.runtime import get_lab, run
from dashboard.common.text import md
from pipeline.api import Lab, StoreFeatures, get_settings, reranker_choices, scoped_store, store_absent, store_path
from pipeline.api.models import DEMO_GROUP, DealInfo, Settings, Store
from pipeline.errors import InvalidInput, RetrievalLabError, StoreUnavailable

DRAWN_KEY = "sidebar.drawn"  # this run's lab and deal, or why the sidebar could not get them


@dataclass(frozen=True)
class StoreOnly(StoreFeatures):
    """What pages that only read the SQLite store need while the graph backend is down (with the store-only
    handles: `history`, `audit`...)."""

    settings: Settings
    store: Store


@dataclass(frozen=True)
class _BackendDown:
    reason: RetrievalLabError


def draw_sidebar() -> None:
    """Draw the sidebar and keep what it picked for the page. A failure is kept too: the page's
    accessor raises it, so the page shows it under its own title."""
    drawn: tuple[Lab, DealInfo | None] | _BackendDown | Exception
    try:
        drawn = _draw()
    except Exception as exc:
        drawn = exc
    st.session_state[DRAWN_KEY] = drawn


def page_context() -> tuple[Lab, DealInfo | None]:
    """The lab and the sidebar's deal (None when no deal exists yet), for a page that needs the graph
    backend; when the backend cannot be reached, its one-line reason is raised (to the page guard)."""
    drawn = st.session_state[DRAWN_KEY]
    if isinstance(drawn, _BackendDown):
        raise drawn.reason
    if isinstance(drawn, Exception):
        raise drawn
    return drawn


def store_context() -> tuple[Lab | StoreOnly, DealInfo | None]:
    """Like `page_context()`, for pages that only read the store: while the graph backend is down they
    say so and get the store alone."""
    drawn = st.session_state[DRAWN_KEY]
    if not isinstance(drawn, _BackendDown):
        return page_context()
    settings = get_settings()
    if store_absent(store_path(settings.resolved_data_dir)):  # nothing recorded; and never create a store here
        raise drawn.reason
    st.warning("The graph backend is unavailable: showing recorded runs only.", icon=":material/cloud_off:")
    return StoreOnly(settings, scoped_store(settings.resolved_data_dir, settings.allowed_deals)), None


def _draw() -> tuple[Lab, DealInfo | None] | _BackendDown:
    try:
        lab = get_lab()
    except StoreUnavailable as exc:  # the page says it too (page_context raises it); no store-only fallback
        st.sidebar.error(f"**Store unavailable.** {md(exc)}", icon=":material/error:")
        raise
    except RetrievalLabError as exc:
        heading = "Settings error." if isinstance(exc, InvalidInput) else "Graph backend unavailable."
        st.sidebar.error(f"**{heading}** {md(exc)}", icon=":material/cloud_off:")
        return _BackendDown(exc)
    return lab, _render(lab)


def _render(lab: Lab) -> DealInfo | None:
    deals = run(lab.deals())
    with st.sidebar:
        deal = None
        if deals:
            ids = [d.group_id for d in deals]
            deal = pick_deal(deals, DEMO_GROUP if DEMO_GROUP in ids else ids[0])
        else:
            st.warning("No deal loaded yet. Run `python -m pipeline seed-demo`.")
    return deal


def draw_details() -> None:
    """Under the admin box, which comes right after the deal picker so that it stays above a laptop's fold: the
    deal's name, id and vectors, then the graph, the embedder and the rerankers."""
    drawn = st.session_state.get(DRAWN_KEY)
    if not (isinstance(drawn, tuple) and len(drawn) == 2):
        return
    lab: Lab = drawn[0]
    deal: DealInfo | None = drawn[1]
    with st.sidebar:
        if deal is not None:
            st.caption(deal_caption(deal))
            st.caption(_vectors_caption(deal, lab))
            if deal.import_note:
                st.caption(f":orange[{md(deal.import_note.capitalize())}]")
        st.caption(f"**Graph:** {lab.backend.label} · :green[healthy]  \n`{lab.backend.location}`")
        st.caption(f"**Embedder:** {lab.embedder.info.describe()}")
        lines = [
            f"{':green[●]' if c.available else ':gray[○]'} {c.label}" + ("" if c.available else f" — {md(c.note)}")
            for c in reranker_choices(lab.settings)
        ]
        st.caption("**Rerankers**  \n" + "  \n".join(lines))


def _vectors_caption(deal: DealInfo, lab: Lab) -> str:
    """Under the deal: its stored vector dimension and whether the configured embedder fits it (if not, the
    setting that would)."""
    dim = f"{deal.embedder_dim}-d vectors" if deal.embedder_dim else "no vectors"
    read_only = " · read-only" if deal.read_only else ""
    match = lab.deal_book.match_label(deal, lab.embedder.info)
    if match == "yes":
        return f"{dim} · :green[embedder matches]{read_only}"
    setting = match.removeprefix("no: ").replace("`", "")
    return f"{dim} · :red[embedder does not match, queries are refused]: set `{setting}`{read_only}"
