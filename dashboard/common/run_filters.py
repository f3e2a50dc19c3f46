"""What the Latency and History pages share: the empty-state hint, and the run filters (deal, reranker, source,
date range, text)."""

from __future__ import annotations

from datetime import UTC, datetime

import streamlit as st

from dashboard.common.dates import enter_commits_dates
from pipeline.api import on_store
from pipeline.api.models import RunFilter, Store

ALL_DEALS = "(all deals)"


def any_runs(store: Store) -> bool:
    """False, with a hint where runs come from, while the store has recorded none."""
    if on_store(store).history.count_runs() > 0:
        return True
    st.info(
        "No runs recorded yet: run a query on Compare or Scores, or `python -m pipeline query` / "
        "`python -m benchmarks bench`."
    )
    return False


def run_filter_controls(ns: str, store: Store, sidebar_deal: str | None, text_search: bool = False) -> RunFilter:
    """Draw the filters under namespace `ns`; the deal starts on the sidebar's deal when it has runs."""
    choices = on_store(store).history.filter_choices()
    deals = [ALL_DEALS, *choices.group_ids]
    # the filter starts on the sidebar's deal and follows it when the sidebar changes deal; picked here, it stays
    followed = st.session_state.get(f"{ns}.sidebar_deal", sidebar_deal)
    st.session_state[f"{ns}.sidebar_deal"] = sidebar_deal
    if f"{ns}.deal" not in st.session_state or followed != sidebar_deal:
        st.session_state[f"{ns}.deal"] = sidebar_deal if sidebar_deal in choices.group_ids else ALL_DEALS
    elif st.session_state[f"{ns}.deal"] not in deals:
        st.session_state[f"{ns}.deal"] = ALL_DEALS
    enter_commits_dates()  # a typed date range commits on Enter, not only when the field loses focus
    # two rows, so a long group id and the date range are never cut off at a laptop's width;
    # every filter is bound to the URL: a reload or a link shows the same runs
    deal_box, dates_box = st.columns(2)
    deal = deal_box.selectbox("Deal", deals, key=f"{ns}.deal", bind="query-params")
    cols = st.columns(3 if text_search else 2)
    rerankers = cols[0].multiselect(
        "Reranker", list(choices.rerankers), key=f"{ns}.rerankers", placeholder="all", bind="query-params", wrap=True
    )
    sources = cols[1].multiselect(
        "Source", list(choices.sources), key=f"{ns}.sources", placeholder="all", bind="query-params", wrap=True
    )
    today = datetime.now(UTC).date()  # runs recorded later in this session are "today": keep them in range
    first, last = choices.first_day or today, max(choices.last_day or today, today)
    picked = dates_box.date_input(
        "Date range (UTC)", value=(first, last), key=f"{ns}.dates", format="YYYY-MM-DD", bind="query-params"
    )
    dates = tuple(picked) if isinstance(picked, list | tuple) else (picked,)
    text = (
        cols[2].text_input("Query contains", key=f"{ns}.text", max_chars=200, bind="query-params")
        if text_search
        else ""
    )
    return RunFilter(
        group_id=None if deal == ALL_DEALS else deal,
        rerankers=tuple(rerankers),
        sources=tuple(sources),
        text=text,
        since=dates[0] if dates else None,
        until=dates[1] if len(dates) > 1 else None,
    )
