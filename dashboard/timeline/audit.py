"""The Timeline's invalidation audit tab: every fact a write retired, what most likely retired it, and the warning
signs of a collateral retirement (graphiti #1728), suspects first; filterable, exported as CSV. It only reads: the
restore of a wrongly retired fact is not built yet (`pipeline invalidations` lists the same)."""

from __future__ import annotations

import streamlit as st

from dashboard.common.deal_state import DealState
from dashboard.common.tables import show_table
from dashboard.timeline import data
from pipeline.api import Lab

NS = "timeline.audit"
FOUND = {
    "recorded": "recorded link (a correction)",
    "episode": "the retiring write's facts",
    "dates": "graphiti's date rule",
    "none": "not found",
}
NAMES = {
    "signs": "Warning signs",
    "retired_at": "Retired at",
    "fact": "Retired fact",
    "by": "Most likely retired by",
    "found": "Found from",
    "in_common": "Words in common",
    "batch": "Retired at that instant",
}


def render_invalidations(lab: Lab, group_id: str, state: DealState) -> None:
    audit = data.invalidation_audit(lab, group_id, state)
    cols = st.columns(3)
    cols[0].metric("Facts", audit.facts)
    cols[1].metric("Retired by a write", len(audit.retirements))
    cols[2].metric("With a warning sign", len(audit.suspicious))
    st.caption(
        "graphiti records no link from a retired fact to what retired it: the fact is found from the write that "
        "retired it. A warning sign: the new fact could not replace the old (neither the same two entities, nor one "
        "of them in the same place under the same relation: the rule proposed in graphiti #1729), it is older, or "
        "none was found. Larger batches retired at one instant, then texts with fewer words in common, come first."
    )
    only = st.toggle("Only retirements with a warning sign", key=f"{NS}.suspects", value=False, bind="query-params")
    shown = audit.suspicious if only else audit.retirements
    if not shown:
        st.info("No retirement has a warning sign." if only else "No fact of this deal was retired by a write.")
        return
    rows = [
        {
            "signs": "; ".join(r.signs) or "none",
            "retired_at": r.retired_at,
            "fact": r.fact.fact,
            "by": r.by.fact if r.by is not None else "",
            "found": FOUND[r.found],
            "in_common": f"{r.similarity:.0%}" if r.similarity is not None else "",
            "batch": r.batch,
            "relation": r.fact.relation,
        }
        for r in shown
    ]
    show_table(
        rows,
        f"{NS}.table",
        names=NAMES,
        times=("retired_at",),
        config={"fact": st.column_config.TextColumn(width="large"), "by": st.column_config.TextColumn(width="large")},
    )
