"""History's recorded queries as a query set: the newest distinct queries of the deal, unjudged, to pool and judge
on the Spot-check page (pipeline/query_sets/history.py)."""

from __future__ import annotations

import streamlit as st

from dashboard.common.page_state.flash import flash, show_flash
from dashboard.common.runtime import run
from dashboard.common.text import md
from pipeline.api import Lab
from pipeline.api.models import HISTORY_LIMIT, HISTORY_SET_NAME
from pipeline.errors import RetrievalLabError

NS = "history.set"


def _save(lab: Lab, group_id: str) -> None:
    name = st.session_state.get(f"{NS}.name", "").strip() or HISTORY_SET_NAME
    try:
        read = run(lab.query_sets.read_history(group_id, int(st.session_state[f"{NS}.limit"])))
        saved = run(lab.query_sets.import_set(group_id, read, name, replace=True, created_by="history")).saved
    except RetrievalLabError as exc:
        flash(NS, md(exc), "error")
        return
    what = "unchanged" if saved.status == "unchanged" else "saved"
    flash(
        NS,
        f"Query set **{md(saved.name)}** {what}: {saved.queries} queries from this deal's History, unjudged; "
        "pool and judge them on the Citation spot-check page (New queue).",
    )


def render_history_as_set(lab: Lab, group_id: str) -> None:
    show_flash(NS)
    with st.expander("Make a query set of this deal's recorded queries"), st.form(NS, border=False):
        cols = st.columns(2)
        cols[0].text_input("Set name", key=f"{NS}.name", max_chars=120, placeholder=HISTORY_SET_NAME)
        cols[1].number_input("Newest distinct queries", 1, 10_000, HISTORY_LIMIT, key=f"{NS}.limit")
        st.caption(
            "Queries asked on the dashboard or with `python -m pipeline query` (benchmark replays left out), "
            "the newest spelling of each; the set replaces one of the same name."
        )
        st.form_submit_button("Save as a query set", key=f"{NS}.save", on_click=_save, args=(lab, group_id))
