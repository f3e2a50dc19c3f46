"""The Timeline page's views: selection controls, the timeline chart, as-of answers, the supersession list."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import streamlit as st

from dashboard.common.deal_state import DealState
from dashboard.common.exports import csv_bytes
from dashboard.common.runtime import run
from dashboard.common.text import OPTION_CHARS, plain
from dashboard.timeline import data
from dashboard.timeline.charts import (
    CHANNEL_LABELS,
    PAGE_BARS,
    chart_pages,
    filter_timeline,
)
from pipeline.lab import Lab
from pipeline.temporal.records import Selection, Timeline
from pipeline.temporal.timeline import superseded_candidate_share

NS = "timeline"
MODES = {"entity": "Entity", "relation": "Relation", "query": "Topic query"}


def selection_controls(lab: Lab, group_id: str, state: DealState) -> Selection | None:
    """Entity (searched by name), relation, or topic query; None until something is picked."""
    mode = st.segmented_control(
        "Show the facts of", list(MODES), key=f"{NS}.mode", default="entity", format_func=MODES.__getitem__
    )
    if mode == "relation":
        relations = data.relations(lab, group_id, state)
        counts = dict(relations)
        name = st.selectbox(
            "Relation",
            list(counts),
            key=f"{NS}.relation",
            index=None,
            placeholder="Pick a relation…",
            format_func=lambda r: plain(f"{r} ({counts[r]} facts)", OPTION_CHARS),
        )
        return Selection("relation", name) if name else None
    if mode == "query":
        text = st.text_input(
            "Topic query",
            key=f"{NS}.query",
            max_chars=2000,
            placeholder="e.g. Halcyon ARR",
            help="Its top 20 facts from hybrid search (superseded ones included), with their whole chains.",
        )
        return Selection("query", text) if text.strip() else None
    left, right = st.columns([2, 3])
    search = left.text_input("Search entities by name", key=f"{NS}.entity_search", placeholder="e.g. Halcyon")
    matches = data.entities_named(lab, group_id, state, search)
    if not matches:
        right.info("No entity with facts matches that name.")
        return None
    names = {m.uuid: plain(f"{m.name} ({m.facts} facts)", OPTION_CHARS) for m in matches}
    if st.session_state.get(f"{NS}.entity") not in names:
        st.session_state[f"{NS}.entity"] = matches[0].uuid
    picked = right.selectbox("Entity", list(names), key=f"{NS}.entity", format_func=names.__getitem__)
    return Selection("entity", picked) if picked else None


def render_timeline(lab: Lab, group_id: str, state: DealState, selection: Selection) -> Timeline:
    tl = data.timeline_of(lab, group_id, state, selection.kind, selection.value)
    if not tl.facts:
        st.info("No facts for this selection.")
        return tl
    today = datetime.now(UTC).date()
    starts = [f.starts_at.date() for f in tl.facts if f.starts_at]
    first = min([*starts, today])
    by_uuid = {f.uuid: f for f in tl.facts}
    changes = [by_uuid[x.old].invalid_at or by_uuid[x.new].starts_at for x in tl.links]
    changed = [c.date() for c in changes if c]
    # open on the months where facts changed (a deal's history can reach back a decade), all of it a click away
    default_start = max(first, min(changed) - timedelta(days=120)) if changed else first
    cols = st.columns([3, 3, 2])
    window = cols[0].date_input(
        "Date range", value=(default_start, today), min_value=first, max_value=today, key=f"{NS}.range"
    )
    channels = cols[1].multiselect(
        "Source channel",
        list(CHANNEL_LABELS),
        default=list(CHANNEL_LABELS),
        key=f"{NS}.channels",
        format_func=CHANNEL_LABELS.__getitem__,
        wrap=True,  # the chips wrap: none is cut off at a laptop's width
    )
    only_chains = cols[2].toggle("Only chains with supersession", value=True, key=f"{NS}.only_chains")
    start, end = (window[0], window[1]) if isinstance(window, tuple) and len(window) == 2 else (None, None)
    shown = filter_timeline(tl, start, end, set(channels), only_chains)
    pages = chart_pages(shown)
    page = _chart_page(len(pages))
    part = pages[page - 1]
    paged = f" · page {page} of {len(pages)}: {len(part.facts)} facts, whole chains" if len(pages) > 1 else ""
    st.caption(
        f"{len(shown.facts)} of {len(tl.facts)} facts · {len(shown.links)} supersession links{paged} "
        "(red arrow: recorded, purple: inferred from dates) · hatched bars are superseded, bars run to today "
        "while a fact is still valid"
    )
    if part.facts:
        # the figure is rebuilt only when what it shows changes: a rerun that keeps it reuses the built one
        drawn = (
            group_id,
            state,
            selection.kind,
            selection.value,
            start,
            end,
            tuple(sorted(channels)),
            only_chains,
            page,
            today,
        )
        figure = data.figure(drawn, part, (start, end))
        st.plotly_chart(figure, key=f"{NS}.chart", width="stretch")
    else:
        st.info("The filters hide every fact: widen the date range or pick more channels.")
    return tl


def _chart_page(pages: int) -> int:
    """The chart page picker, shown only when the selection needs more than one page."""
    key = f"{NS}.page"
    if pages <= 1:
        st.session_state.pop(key, None)
        return 1
    if st.session_state.get(key, 1) > pages:  # the filters now give fewer pages
        st.session_state[key] = 1
    return int(
        st.number_input(
            f"Chart page (of {pages})",
            min_value=1,
            max_value=pages,
            step=1,
            key=key,
            help=f"At most {PAGE_BARS} bars a page; a supersession chain is never split across pages.",
        )
    )


def render_as_of(lab: Lab, group_id: str, state: DealState, selection: Selection, tl: Timeline) -> None:
    st.caption(
        "What was true on a date for this selection, and what changed since: facts superseded since then, "
        "facts new since then, facts unchanged. A topic query runs retrieval with that as-of date."
    )
    key = f"{NS}.as_of"
    if key not in st.session_state:
        ends = sorted(f.invalid_at.date() for f in tl.facts if f.invalid_at)
        st.session_state[key] = ends[len(ends) // 2] if ends else None
    when = st.date_input("As of", key=key, max_value=datetime.now(UTC).date())
    if when is None:
        st.info("Pick a date to see what was true then.")
        return
    when_utc = datetime(when.year, when.month, when.day, tzinfo=UTC)
    answer, then, diff = data.as_of_tables(lab, group_id, state, selection.kind, selection.value, when_utc)
    cols = st.columns(4)
    cols[0].metric(f"True on {when}", len(answer.then))
    cols[1].metric("Superseded since", answer.count("superseded"))
    cols[2].metric("New since", answer.count("new"))
    cols[3].metric("Unchanged", answer.count("unchanged"))
    st.markdown(f"**What was true on {when}**")
    st.dataframe(
        then, key=f"{NS}.then", hide_index=True, column_config={"fact": st.column_config.TextColumn(width="large")}
    )
    st.markdown("**Changed since then (compared with today)**")
    st.dataframe(
        diff,
        key=f"{NS}.diff",
        hide_index=True,
        column_config={
            "fact": st.column_config.TextColumn(width="large"),
            "replaced_by": st.column_config.TextColumn("replaced by (today)", width="large"),
        },
    )


def render_supersessions(lab: Lab, group_id: str, state: DealState) -> None:
    frame, counts = data.supersession_table(lab, group_id, state)
    cols = st.columns(5)
    cols[0].metric("Facts", counts.facts)
    cols[1].metric("Current", counts.current)
    cols[2].metric("Superseded", counts.superseded)
    cols[3].metric("Chains", counts.chains)
    cols[4].metric("Links inferred", counts.inferred, help="Links read from dates because no attribute records them")
    share_key = f"{NS}.share.{group_id}.{counts.facts}.{counts.superseded}"
    if st.button("Measure superseded share of candidates", key=f"{NS}.measure", icon=":material/speed:"):
        st.session_state[share_key] = run(superseded_candidate_share(lab, group_id), timeout=600)
    if share_key in st.session_state:
        share = st.session_state[share_key]
        if share is None:
            st.info("This deal has no labelled queries to measure over.")
        else:
            st.metric("Superseded share of candidates", f"{share.share:.1%}")
            st.caption(
                f"Over the deal's {share.queries} labelled queries, first stage (BM25 + cosine + BFS, RRF) with "
                f"superseded facts not filtered out (include_superseded=True), N = {share.num_candidates}: "
                f"{share.superseded_candidates:,} of {share.candidates:,} candidates are superseded facts; "
                f"in the top {share.top_k} without reranking, {share.top_k_share:.1%}. This is what the default "
                "current-only filter removes at search time."
            )
    else:
        st.caption("The share of first-stage candidates that are superseded, over the deal's labelled queries (~5 s).")
    st.dataframe(
        frame,
        key=f"{NS}.supersessions",
        hide_index=True,
        column_config={
            "old_fact": st.column_config.TextColumn("old fact", width="large"),
            "new_fact": st.column_config.TextColumn("new fact", width="large"),
            "old_uuid": None,
            "new_uuid": None,
        },
    )
    st.download_button(
        "Export CSV",
        lambda: csv_bytes(frame),  # built when clicked, not on every rerun
        file_name=f"supersessions-{group_id}.csv",
        mime="text/csv",
        key=f"{NS}.export",
        icon=":material/download:",
    )
