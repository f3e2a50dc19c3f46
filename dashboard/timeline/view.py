"""The Timeline page's views: selection controls, the timeline chart, as-of answers, the supersession list."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dashboard.common.dates import enter_commits_dates
from dashboard.common.deal_state import DealState
from dashboard.common.exports import csv_bytes
from dashboard.common.links import evidence_params
from dashboard.common.page_state.flash import show_flash
from dashboard.common.page_state.memo import SessionMemo
from dashboard.common.page_state.url import linked_date, publish_id, restore_text
from dashboard.common.runtime import run
from dashboard.common.tables import show_table
from dashboard.common.text import OPTION_CHARS, plain
from dashboard.timeline import data
from dashboard.timeline.admin import CHART_KEY, PICK_FLASH, pick_on_chart
from dashboard.timeline.charts import (
    CHANNEL_LABELS,
    PAGE_BARS,
    chart_pages,
    chart_title,
    default_as_of,
    filter_timeline,
)
from pipeline.api import Lab
from pipeline.api.models import FactSelection, Timeline

NS = "timeline"
SHARES = SessionMemo(f"{NS}.share", keep=8)  # measured per (deal, facts, superseded): a changed graph measures anew
MODES = {"entity": "Entity", "relation": "Relation", "query": "Topic query"}
TABLE_NAMES = {  # the as-of and supersession tables' headers (their frames come from charts.py)
    "valid_at": "Valid from",
    "invalid_at": "Valid until",
    "replaced_by": "Replaced by (today)",
    "when": "Superseded on",
    "old_fact": "Old fact",
    "new_fact": "New fact",
    "source_channel": "Source channel",
}
AS_OF = f"{NS}.as_of"
AS_OF_PICKED, AS_OF_DEFAULT_FOR = f"{NS}.as_of.picked", f"{NS}.as_of.default_for"
DAY = "YYYY-MM-DD"


def selection_controls(lab: Lab, group_id: str, state: DealState) -> FactSelection | None:
    """Entity (searched by name), relation, or topic query; None until something is picked. All of it is in
    the URL: the mode, the search text and the query bound to it, the entity (uuid) and relation (name) by
    url_state, since their labels carry fact counts a correction changes."""
    mode = st.segmented_control(
        "Show the facts of",
        list(MODES),
        key=f"{NS}.mode",
        default="entity",
        format_func=MODES.__getitem__,
        bind="query-params",
    )
    if mode == "relation":
        relations = data.relations(lab, group_id, state)
        counts = dict(relations)
        restore_text(f"{NS}.relation", counts, "relation", "a relation of this deal")
        name = st.selectbox(
            "Relation",
            list(counts),
            key=f"{NS}.relation",
            index=None,
            placeholder="Pick a relation…",
            format_func=lambda r: plain(f"{r} ({counts[r]} facts)", OPTION_CHARS),
        )
        publish_id(f"{NS}.relation", name)
        return FactSelection("relation", name) if name else None
    if mode == "query":
        text = st.text_input(
            "Topic query",
            key=f"{NS}.query",
            max_chars=2000,
            placeholder="e.g. Halcyon ARR",
            help="Its top 20 facts from hybrid search (superseded ones included), with their whole chains.",
            bind="query-params",
        )
        return FactSelection("query", text) if text.strip() else None
    left, right = st.columns([2, 3])
    search = left.text_input(
        "Search entities by name", key=f"{NS}.entity_search", placeholder="e.g. Halcyon", bind="query-params"
    )
    matches = data.entities_named(lab, group_id, state, search)
    if not matches:
        right.info("No entity with facts matches that name.")
        return None
    names = {m.uuid: plain(f"{m.name} ({m.facts} facts)", OPTION_CHARS) for m in matches}
    restore_text(f"{NS}.entity", names, "entity", "an entity matching the search")
    if st.session_state.get(f"{NS}.entity") not in names:
        st.session_state[f"{NS}.entity"] = matches[0].uuid
    picked = right.selectbox("Entity", list(names), key=f"{NS}.entity", format_func=names.__getitem__)
    publish_id(f"{NS}.entity", picked)
    return FactSelection("entity", picked) if picked else None


def render_timeline(lab: Lab, group_id: str, state: DealState, selection: FactSelection, admin: bool) -> Timeline:
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
    enter_commits_dates()
    cols = st.columns([3, 2, 3, 2])
    window = cols[0].date_input(
        "Date range",
        value=(default_start, today),
        min_value=first,
        max_value=today,
        key=f"{NS}.range",
        format=DAY,
        bind="query-params",
    )
    when = _as_of_control(cols[1], tl, selection, today)
    channels = cols[2].multiselect(
        "Source channel",
        list(CHANNEL_LABELS),
        default=list(CHANNEL_LABELS),
        key=f"{NS}.channels",
        format_func=CHANNEL_LABELS.__getitem__,
        wrap=True,  # the chips wrap: none is cut off at a laptop's width
    )
    only_chains = cols[3].toggle(
        "Chains only",
        value=True,
        key=f"{NS}.only_chains",
        help="Only facts that superseded or were superseded by another (a chain); off: every fact of the selection.",
    )
    start, end = (window[0], window[1]) if isinstance(window, tuple) and len(window) == 2 else (None, None)
    if start and end and start > end:  # only a hand-edited link can say so: read it the right way round
        st.warning(f"The date range ends before it starts: showing {end} to {start}.")
        start, end = end, start
    shown = filter_timeline(tl, start, end, set(channels), only_chains)
    pages = chart_pages(shown)
    page = _chart_page(len(pages))
    part = pages[page - 1]
    paged = f" · page {page} of {len(pages)}: {len(part.facts)} facts, whole chains" if len(pages) > 1 else ""
    st.caption(
        f"{len(shown.facts)} of {len(tl.facts)} facts · {len(shown.links)} supersession links{paged} "
        "(red arrow: recorded, purple: inferred from dates) · hatched bars are superseded, bars run to today "
        "while a fact is still valid · the dashed line is the as-of date"
        + (" · click a current fact's bar to correct it" if admin else "")
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
            when,
        )
        figure = data.figure(drawn, part, (start, end), when, chart_title(tl))
        # an admin picks the fact to correct by clicking its bar
        picking = {"on_select": pick_on_chart(tl), "selection_mode": "points"} if admin else {}
        st.plotly_chart(figure, key=CHART_KEY, width="stretch", **picking)
        show_flash(PICK_FLASH)
        _evidence_picker(group_id, part)
    else:
        st.info("The filters hide every fact: widen the date range or pick more channels.")
    return tl


def _evidence_picker(group_id: str, part: Timeline) -> None:
    """A fact of the chart opens its evidence (entities, versions, sources) on the Evidence page."""
    facts = {f.uuid: f for f in part.facts}
    key = f"{NS}.evidence"

    def picked() -> None:
        st.session_state[f"{key}.go"] = st.session_state.get(key)
        st.session_state[key] = None

    st.selectbox(
        "A fact's evidence",
        list(facts),
        index=None,
        key=key,
        placeholder="Pick a fact of the chart to see its entities, versions and sources…",
        format_func=lambda u: plain(f"{facts[u].relation} · {facts[u].fact}", OPTION_CHARS),
        on_change=picked,
    )
    if (uuid := st.session_state.pop(f"{key}.go", None)) is not None:
        st.switch_page("app_pages/evidence.py", query_params=evidence_params(group_id, uuid))


def _as_of_control(col: DeltaGenerator, tl: Timeline, selection: FactSelection, today: date) -> date | None:
    """The as-of date, above the chart that draws it as a line (the "As of a date" tab lists what was true then).
    It follows the selection (`default_as_of`) until a date is picked or comes from a link; a picked date is
    in the URL (`timeline.as_of=2026-01-15`)."""
    if (linked := linked_date(AS_OF, today, "as-of date")) is not None:
        st.session_state[AS_OF], st.session_state[AS_OF_PICKED] = linked, True
    if AS_OF not in st.session_state or (
        not st.session_state.get(AS_OF_PICKED) and st.session_state.get(AS_OF_DEFAULT_FOR) != selection
    ):
        st.session_state[AS_OF] = default_as_of(tl, today)
        st.session_state[AS_OF_DEFAULT_FOR] = selection
    when = col.date_input(
        "As of",
        max_value=today,
        key=AS_OF,
        format=DAY,
        on_change=_as_of_picked,
        help="Drawn on the chart as a dashed line; the 'As of a date' tab lists what was true then and what "
        "changed since.",
    )
    picked = st.session_state.get(AS_OF_PICKED) and isinstance(when, date)
    publish_id(AS_OF, when.isoformat() if picked else None)
    return when


def _as_of_picked() -> None:
    st.session_state[AS_OF_PICKED] = True


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


def render_as_of(lab: Lab, group_id: str, state: DealState, selection: FactSelection, tl: Timeline) -> None:
    st.caption(
        "What was true on the as-of date (picked above the chart) for this selection, and what changed since: "
        "facts superseded since then, facts new since then, facts unchanged. A topic query runs retrieval with "
        "that as-of date."
    )
    if not tl.facts:
        return
    when = st.session_state.get(AS_OF)  # picked above the chart
    if not isinstance(when, date):
        st.info("Pick an as-of date above the chart to see what was true then.")
        return
    when_utc = datetime(when.year, when.month, when.day, tzinfo=UTC)
    answer, then, diff = data.as_of_tables(lab, group_id, state, selection.kind, selection.value, when_utc)
    cols = st.columns(4)
    cols[0].metric(f"True on {when}", len(answer.then))
    cols[1].metric("Superseded since then", answer.count("superseded"))
    cols[2].metric("New since then", answer.count("new"))
    cols[3].metric("Unchanged since then", answer.count("unchanged"))
    st.markdown(f"**What was true on {when}**")
    show_table(then, f"{NS}.then", names=TABLE_NAMES, config={"fact": st.column_config.TextColumn(width="large")})
    st.markdown("**Changed since then (compared with today)**")
    show_table(
        diff,
        f"{NS}.diff",
        names=TABLE_NAMES,
        config={
            "fact": st.column_config.TextColumn(width="large"),
            "replaced_by": st.column_config.TextColumn(width="large"),
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
    measured = (group_id, counts.facts, counts.superseded)
    if st.button("Measure superseded share of candidates", key=f"{NS}.measure", icon=":material/speed:"):
        SHARES.put(measured, run(lab.temporal.superseded_candidate_share(group_id), timeout=600))
    if measured in SHARES:
        share = SHARES.peek(measured)
        if share is None:
            st.info("This deal has no labelled queries to measure over.")
        else:
            st.metric("Superseded share of candidates", f"{share.share:.1%}")
            st.caption(
                f"Over the deal's {share.queries} labelled queries, first stage (BM25 + cosine + BFS, RRF) with "
                f"superseded facts not filtered out (include_superseded=True), N = {share.setting.candidates}: "
                f"{share.superseded_candidates:,} of {share.candidates:,} candidates are superseded facts; "
                f"in the top {share.setting.top_k} without reranking, {share.top_k_share:.1%}. This is what the "
                "default current-only filter removes at search time."
            )
    else:
        st.caption("The share of first-stage candidates that are superseded, over the deal's labelled queries (~5 s).")
    show_table(
        frame,
        f"{NS}.supersessions",
        export=False,  # "Export CSV" below
        names=TABLE_NAMES,
        config={
            "old_fact": st.column_config.TextColumn(width="large"),
            "new_fact": st.column_config.TextColumn(width="large"),
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
        on_click="ignore",
    )
