"""Entity merges' operating point: for a precision to keep, the lowest auto-merge threshold of graphiti's own
deterministic rule and of this tool's score on the deal's labelled pairs (the demo's, and every merge or rejection
made here), with what graphiti's default does, and graphiti's threshold as the line a team sets."""

from __future__ import annotations

import streamlit as st

from dashboard.common.deal_state import DealState
from dashboard.merges import data
from dashboard.merges.admin import NS
from pipeline.api import Lab
from pipeline.api.models import RULES, PRPoint

PRECISION = f"{NS}.precision"


def _point_line(point: PRPoint | None, same: int) -> str:
    if point is None:
        return "no threshold keeps that precision"
    right = f"{point.true_positives} of {same} duplicates merged, {point.false_positives} wrongly"
    if point.precision is None:
        return f"merges nothing ({right})"
    return f"precision {point.precision:.0%}, recall {point.recall or 0:.0%} ({right})"


def render_operating_point(lab: Lab, group_id: str, state: DealState) -> None:
    st.subheader("Auto-merge operating point")
    points = data.operating(lab, group_id, state)
    if points is None:
        st.info("No labelled pair yet: every merge and rejection made here becomes one.")
        return
    same = sum(1 for p in points.pairs if p.same)
    target = st.number_input(
        "Precision to keep", 0.5, 1.0, 0.95, step=0.01, key=PRECISION, bind="query-params",
        help="The share of auto-merges that must be right; the lowest threshold keeping it merges the most.",
    )  # fmt: skip
    st.caption(
        f"On {len(points.pairs)} labelled pairs ({same} the same entity): the demo's labels and every merge (one "
        "entity) or rejection (two) made on this deal. graphiti merges without its LLM when two names' exact keys are "
        "equal, or (past its entropy gate) their shingle Jaccard reaches its threshold."
    )
    for column, (rule, what) in zip(st.columns(2), RULES.items(), strict=True):
        point = points.at_precision(rule, target)
        column.metric(what, "—" if point is None else f"{point.threshold:.2f}", help="The lowest threshold keeping it")
        column.caption(_point_line(point, same))
    default = points.graphiti_default
    st.caption(f"graphiti's default {default.threshold:.2f}: {_point_line(default, same)}.")
    chosen = points.at_precision("graphiti", target)
    if chosen is not None:
        st.code(lab.merges.graphiti_setting(chosen.threshold), language="python")
