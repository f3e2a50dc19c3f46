"""The Audit log page: every admin action with who, when, what, before and after; filters by deal, action
and person; CSV export; for an action that can still be undone, a way to its record's view: the Timeline's
correction form or the Entity merges page, opened on that record (the page picks it from a one-shot query
parameter, then drops it)."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from dashboard.common.exports import csv_bytes
from dashboard.common.page_state.url import in_url
from dashboard.common.sidebar import DEAL_KEY
from dashboard.common.tables import show_table, stamp
from dashboard.common.text import OPTION_CHARS, plain
from dashboard.merges.admin import MERGE_PARAM
from dashboard.timeline.admin import CORRECTION_PARAM, FIX_TAB, TAB_KEY
from pipeline.api import describe_audit_entry, on_store
from pipeline.api.models import AuditEntry, AuditFilter, Store, UndoKind

NS = "audit"
COLUMNS = ["When (UTC)", "Who", "Action", "Deal", "What", "Before", "After", "Undo"]
PAGES: dict[UndoKind, tuple[str, str]] = {
    "correction": ("app_pages/timeline.py", "Timeline"),
    "merge": ("app_pages/merges.py", "Entity merges"),
}


def undo_params(group_id: str, kind: UndoKind, record_id: str) -> dict[str, str]:
    if kind == "correction":
        return {DEAL_KEY: group_id, TAB_KEY: FIX_TAB, CORRECTION_PARAM: record_id}
    return {DEAL_KEY: group_id, MERGE_PARAM: record_id}


def undo_url(group_id: str, kind: UndoKind, record_id: str) -> str:
    """A relative link to the record's view (for a shared link; it opens a new session, locked until unlocked)."""
    url_path = "timeline" if kind == "correction" else "merges"
    return f"{url_path}?{urlencode(undo_params(group_id, kind, record_id))}"


def render_filters(store: Store, deal: str | None) -> AuditFilter:
    audit = on_store(store).audit
    facets = audit.facets()
    deals, actions, actors = st.columns([1, 1, 1])
    # the filters are bound to the URL: a link or a reload shows the same entries
    linked = f"{NS}.for_deal" not in st.session_state and in_url(f"{NS}.deals")
    if st.session_state.get(f"{NS}.for_deal", "") != deal:  # opens on the sidebar's deal (or the link's), follows it
        st.session_state[f"{NS}.for_deal"] = deal
        if not linked:
            st.session_state[f"{NS}.deals"] = [deal] if deal in facets["deals"] else []
    return AuditFilter(
        deals.multiselect(
            "Deal",
            facets["deals"],
            key=f"{NS}.deals",
            placeholder="All deals",
            bind="query-params",
            wrap=True,
            format_func=lambda g: plain(g or "(no deal: admin sign-in)", OPTION_CHARS),
        ),
        actions.multiselect(
            "Action",
            facets["actions"],
            key=f"{NS}.actions",
            placeholder="All actions",
            format_func=audit.action_label,
            bind="query-params",
            wrap=True,
        ),
        actors.multiselect(
            "Person",
            facets["actors"],
            key=f"{NS}.actors",
            placeholder="Everyone",
            bind="query-params",
            wrap=True,
            format_func=lambda a: plain(a, OPTION_CHARS),
        ),
    )


def _still_undoable(store: Store, entries: Sequence[AuditEntry]) -> set[str]:
    """Ids of the corrections still open and merges not undone among `entries`' deals."""
    ids: set[str] = set()
    features = on_store(store)
    for group_id in {e.group_id for e in entries if e.action in ("fact.correct", "merge")}:
        ids |= {c.id for c in features.corrections.list_corrections(group_id) if not c.undone}
        undone = {m.get("uuid") for m in features.merges.undone_merges(group_id)}
        ids |= {str(e.details.get("uuid")) for e in entries if e.action == "merge" and e.group_id == group_id} - undone
    return ids


def audit_frame(entries: Sequence[AuditEntry], undoable: set[str]) -> pd.DataFrame:
    rows = []
    for e in entries:
        d = describe_audit_entry(e)
        link = undo_url(e.group_id, *d.undo) if d.undo and d.undo[1] in undoable else None
        rows.append([e.at, e.actor, d.label, e.group_id, d.what, d.before, d.after, link])
    return pd.DataFrame(rows, columns=COLUMNS)


def render_log(store: Store, where: AuditFilter) -> None:
    entries = on_store(store).audit.filtered(where)
    if not entries:
        st.info("No admin action matches these filters.")
        return
    undoable = _still_undoable(store, entries)
    frame = audit_frame(entries, undoable)
    st.caption(f"{len(entries):,} entries, newest first.")
    show_table(
        frame,
        f"{NS}.table",
        export=False,  # "Download CSV" below (without the Undo links)
        times=("When (UTC)",),
        config={
            "What": st.column_config.TextColumn(width="medium"),
            "Before": st.column_config.TextColumn(width="large"),
            "After": st.column_config.TextColumn(width="large"),
            "Undo": st.column_config.LinkColumn(
                "Undo",
                display_text="open to undo",
                help="The record's view, in a new tab (unlock admin there); to stay signed in, use the picker below.",
            ),
        },
    )
    st.download_button(
        "Download CSV",
        csv_bytes(frame.drop(columns=["Undo"])),
        file_name="audit_log.csv",
        mime="text/csv",
        key=f"{NS}.csv",
        icon=":material/download:",
        on_click="ignore",
    )
    render_undo_picker(entries, undoable)


def render_undo_picker(entries: Sequence[AuditEntry], undoable: set[str]) -> None:
    """A correction or merge that can still be undone, opened on its page in this session (admin stays on)."""
    open_ones = {e.id: e for e in entries if (d := describe_audit_entry(e).undo) and d[1] in undoable}
    labels = {
        i: f"{stamp(e.at)} UTC · {describe_audit_entry(e).label} · {describe_audit_entry(e).what}"
        for i, e in open_ones.items()
    }
    if not open_ones:
        return
    st.markdown("**Undo an action**: open its record where the undo is")
    picked = st.selectbox(
        "Action to undo",
        list(open_ones),
        key=f"{NS}.undo_pick",
        index=None,
        placeholder="Pick a correction or a merge…",
        format_func=lambda i: plain(labels[i], OPTION_CHARS),
    )
    if picked is not None:
        entry = open_ones[picked]
        undo = describe_audit_entry(entry).undo
        assert undo is not None
        page, title = PAGES[undo[0]]
        st.page_link(
            page,
            label=f"Open on {title} to undo",
            icon=":material/undo:",
            query_params=undo_params(entry.group_id, *undo),
        )
