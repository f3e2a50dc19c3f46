"""Correct a fact and undo a correction (admin only), and the deal's correction history."""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import UTC, datetime
from functools import partial

import pandas as pd
import streamlit as st

from dashboard.common.admin import ask, confirmed, read_only_notice
from dashboard.common.dates import enter_commits_dates
from dashboard.common.page_state.flash import flash, show_flash
from dashboard.common.page_state.url import take_link
from dashboard.common.runtime import run
from dashboard.common.tables import day, show_table, stamp
from dashboard.common.text import OPTION_CHARS, md, plain
from dashboard.timeline import data
from pipeline.api import Lab
from pipeline.api.models import CORRECTION_CHANNELS, CorrectionRequest, Timeline
from pipeline.errors import RetrievalLabError

NS = "timeline.fix"
FLASH = "timeline.flash"
UNDO_PICK = "timeline.undo.pick"
FIX_FACT = f"{NS}.fact"  # the fact to correct: picked in its box, or by clicking its bar on the chart
CHART_KEY, PICK_FLASH = "timeline.chart", "timeline.bar_pick"


TAB_KEY, FIX_TAB = "timeline.tab", "Correct a fact"  # the page's tabs, bound to the URL
CORRECTION_PARAM = "timeline.correction"  # a one-shot link parameter (the audit log's): the correction to undo


def take_linked_correction() -> None:
    """A link from the audit log names a correction: picked in the undo box if it is still open."""
    take_link(CORRECTION_PARAM, f"{NS}.linked")


SELECTION_KEYS = ("timeline.relation", "timeline.entity_search", "timeline.entity", "timeline.query")
KEPT = f"{NS}.kept_selection"


def restore_selection() -> None:
    """After an admin action, set the selection widgets to what they showed before it. Their option labels
    carry fact counts the action changed; set from the server, the browser takes the new label, where it would
    otherwise send back the old one at the next click and lose the selection."""
    for key, value in st.session_state.pop(KEPT, {}).items():
        st.session_state[key] = value


def pick_on_chart(tl: Timeline) -> Callable[[], None]:
    """The chart's on_select for an admin: a clicked current fact opens "Correct a fact" with it picked; a
    superseded one says why it cannot be. A callback, so both are set before any widget of the run is drawn."""
    facts = {f.uuid: (f.fact, f.superseded) for f in tl.facts}
    return partial(_picked_on_chart, facts)


def _picked_on_chart(facts: dict[str, tuple[str, bool]]) -> None:
    event = st.session_state.get(CHART_KEY) or {}
    points = [p for p in event.get("selection", {}).get("points", ()) if p.get("y") in facts]
    if not points:  # the selection cleared (a second click, a redrawn chart): nothing to do
        return
    uuid = points[0]["y"]
    fact, superseded = facts[uuid]
    if superseded:
        flash(PICK_FLASH, f"“{md(fact)}” is superseded: only a current fact can be corrected.", "info")
        return
    st.session_state[FIX_FACT] = uuid
    st.session_state[TAB_KEY] = FIX_TAB
    flash(PICK_FLASH, f"Picked for correction: “{md(fact)}” (in “{FIX_TAB}”, below).")


FIX_FOR = f"{NS}.fact_for"  # the selection the picked fact was picked in
FORM_RESET = f"{NS}.reset"  # set by a write: the fact its form stays on, for the next run to set before drawing it


def _done(message: str, fact_uuid: str) -> None:
    """After a write: its outcome, the selection as it was, and the form emptied and kept on `fact_uuid` (the
    corrected fact's successor, or the fact an undo made current again). Popping the form's keys is not enough:
    the browser keeps what its widgets showed and sends it back with the next click (the old statement, on the
    first fact of the list, which a second Confirm would have written there); values set before the widgets are
    drawn replace what the browser shows."""
    flash(FLASH, message)
    st.session_state[KEPT] = {k: st.session_state[k] for k in SELECTION_KEYS if st.session_state.get(k) is not None}
    st.session_state[FORM_RESET] = fact_uuid
    data.clear()
    st.rerun()


def _reset_form(current: Collection[str]) -> None:
    """The next run after a write, before the form is drawn: every field empty, today's date, and the fact the
    write named picked (when it is still a current fact of the selection; else none)."""
    fact_uuid = st.session_state.pop(FORM_RESET, None)
    if fact_uuid is None:
        return
    st.session_state[FIX_FACT] = fact_uuid if fact_uuid in current else None
    st.session_state[f"{NS}.statement"] = ""
    st.session_state[f"{NS}.author"] = ""
    st.session_state[f"{NS}.source"] = ""
    st.session_state[f"{NS}.date"] = datetime.now(UTC).date()


def render_correction(lab: Lab, group_id: str, tl: Timeline | None, actor: str | None) -> None:
    st.caption(
        "A correction writes a new fact (same entities and relation) from a Q&A answer or an analyst note, "
        "and supersedes the current one from the date you give. It is audited and can be undone exactly."
    )
    show_flash(FLASH)  # the last correction's or undo's outcome, here beside them
    if actor is None:
        read_only_notice()
    else:
        current = {f.uuid: f for f in (tl.facts if tl else ()) if not f.superseded}
        _reset_form(current)
        # a fresh form, or another selection, opens on the selection's first fact; a pick of this selection no
        # longer current (another admin corrected it) leaves none picked: never another fact in its place
        selection = tl.selection if tl else None
        if st.session_state.get(FIX_FACT) not in current:
            fresh = FIX_FACT not in st.session_state or st.session_state.get(FIX_FOR) != selection
            st.session_state[FIX_FACT] = next(iter(current)) if fresh and current else None
        st.session_state[FIX_FOR] = selection
        if not current:
            st.info("This selection has no current fact to correct.")
        elif (
            fact_uuid := st.selectbox(
                "Fact to correct (current facts of this selection)",
                list(current),
                key=FIX_FACT,
                index=None,
                placeholder="Pick the fact to correct, or click its bar on the chart…",
                format_func=lambda u: plain(f"{current[u].relation} · {current[u].fact}", OPTION_CHARS),
            )
        ) is None:
            st.caption("The form opens once a fact is picked.")
        else:
            fact = current[fact_uuid]
            st.caption(f"Valid since {fact.valid_at.date() if fact.valid_at else 'unknown'} · {md(fact.citation)}")
            statement = st.text_area("Corrected statement", key=f"{NS}.statement", max_chars=2000, height=80)
            cols = st.columns(3)
            channel = cols[0].selectbox(
                "Source", list(CORRECTION_CHANNELS), key=f"{NS}.channel", format_func=CORRECTION_CHANNELS.__getitem__
            )
            author = cols[1].text_input("Who said it", key=f"{NS}.author", placeholder="e.g. Dana Whitfield (CFO)")
            enter_commits_dates()
            when = cols[2].date_input(
                "When (valid from)", key=f"{NS}.date", max_value=datetime.now(UTC).date(), format="YYYY-MM-DD"
            )
            source = st.text_area(
                "The answer or note as written (optional)",
                key=f"{NS}.source",
                height=80,
                help="Kept as the new fact's source episode; the statement itself is used when left empty.",
            )
            request = CorrectionRequest(fact_uuid, statement, channel, author, when, source)
            summary = (
                f"Correct “{md(fact.fact)}”: it is superseded from {when} by “{md(statement.strip())}” "
                f"({CORRECTION_CHANNELS.get(channel, channel)} · {md(author.strip())})."
            )
            if st.button("Correct fact…", key=f"{NS}.submit", type="primary", icon=":material/edit:"):
                try:  # refused input is said at once, before the confirmation
                    run(lab.corrections.validate(group_id, request))
                except RetrievalLabError as exc:
                    st.error(md(exc), icon=":material/block:")
                else:
                    ask(f"{NS}.submit", summary)
            if confirmed(f"{NS}.submit", summary):
                try:
                    record = run(lab.corrections.correct_fact(group_id, request, actor))
                except RetrievalLabError as exc:  # refused: say why here, keep the rest of the page
                    st.error(md(exc), icon=":material/block:")
                else:
                    _done(
                        f"Corrected: “{md(record.old_fact)}” is superseded by “{md(record.new_fact)}” from {when}.",
                        record.new_uuid,
                    )
    render_history(lab, group_id, actor)


def render_history(lab: Lab, group_id: str, actor: str | None) -> None:
    records = lab.corrections.list_corrections(group_id)
    st.markdown("**Corrections in this deal**")
    if not records:
        st.caption("No corrections yet.")
        return
    frame = pd.DataFrame(
        [
            {
                "id": r.id,
                "Corrected": r.created_at,
                "By": r.actor,
                "Old fact": r.old_fact,
                "New fact": r.new_fact,
                "Source": f"{CORRECTION_CHANNELS.get(r.channel, r.channel)} · {r.author}",
                "Valid from": day(r.valid_at),
                "Undone": f"{stamp(r.undone_at)} UTC by {r.undone_by}" if r.undone else None,
            }
            for r in records
        ]
    )
    show_table(frame, "timeline.corrections", times=("Corrected",), config={"id": None})
    if actor is None:
        return
    open_records = {r.id: r for r in records if not r.undone}
    if not open_records:
        return
    linked = st.session_state.pop(f"{NS}.linked", None)
    if linked in open_records:
        st.session_state[UNDO_PICK] = linked
        st.info(
            f"From the audit log: the correction “{md(open_records[linked].new_fact)}” is picked below.",
            icon=":material/receipt_long:",
        )
    elif linked is not None:
        st.warning("The correction opened from the audit log is no longer open: nothing to undo.")
    picked = st.selectbox(
        "Correction to undo",
        list(open_records),
        key=UNDO_PICK,
        format_func=lambda i: plain(
            f"{stamp(open_records[i].created_at)} UTC · {open_records[i].new_fact}", OPTION_CHARS
        ),
    )
    chosen = open_records[picked]
    summary = (
        f"Undo the correction of {stamp(chosen.created_at)} UTC by {md(chosen.actor)}: “{md(chosen.old_fact)}” is "
        f"current again and “{md(chosen.new_fact)}” is removed."
    )
    if st.button("Undo correction…", key="timeline.undo.submit", icon=":material/undo:"):
        ask("timeline.undo.submit", summary)
    if confirmed("timeline.undo.submit", summary):
        try:
            record = run(lab.corrections.undo_correction(group_id, picked, actor))
        except RetrievalLabError as exc:
            st.error(md(exc), icon=":material/block:")
        else:
            _done(
                f"Undone: “{md(record.old_fact)}” is current again; “{md(record.new_fact)}” was removed.",
                record.old_uuid,
            )
