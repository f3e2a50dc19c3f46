"""The Entity merges page: recorded merges, candidate duplicates, precision/recall, admin actions.

Everything is computed by `pipeline/merges` and cached per deal state (`dashboard/merges/data.py`); this
module only lays it out. The admin actions are in `dashboard/merges/admin.py`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from dashboard.common.deal_state import DealState, deal_state
from dashboard.common.page_state.url import take_link
from dashboard.common.tables import show_table
from dashboard.common.text import LABEL_CHARS, md
from dashboard.merges import data
from dashboard.merges.admin import LINKED, MERGE_PARAM, NS, render_admin
from dashboard.merges.charts import precision_recall_chart
from dashboard.merges.operating import render_operating_point
from pipeline.api import Lab
from pipeline.api.models import (
    DEFAULT_THRESHOLD,
    W_COSINE,
    W_SHINGLE,
    CandidateReport,
    DealInfo,
    LabelledEvaluation,
    MergeView,
    Rejection,
)

THRESHOLD = f"{NS}.threshold"
MERGE_NAMES = {
    "canonical": "Canonical",
    "canonical_name": "Canonical",
    "alias_name": "Alias",
    "merged_at": "Merged",
    "merged_by": "Merged by",
    "facts_brought": "Facts brought",
    "undone_by": "Undone by",
    "undone_at": "Undone",
    "rejected_by": "Rejected by",
    "rejected_at": "Rejected",
}
SIGNAL_NAMES = {
    "name_match": "Name match",
    "shingle_jaccard": "Shingle Jaccard",
    "name_cosine": "Name cosine",
    "shared_neighbours": "Shared neighbours",
}


def render_merges_page(lab: Lab, deal: DealInfo, actor: str | None) -> None:
    take_link(MERGE_PARAM, LINKED)  # opened from the audit log on a merge
    group_id, state = deal.group_id, deal_state(lab, deal)
    merges = data.merges(lab, group_id, state)
    report = data.candidates(lab, group_id, state)
    render_recorded(lab, group_id, state, merges)
    threshold = render_candidates(lab, group_id, state, report)
    render_precision_recall(lab, group_id, state, threshold)
    render_operating_point(lab, group_id, state)
    render_admin(lab, group_id, state, actor, merges, report)


# --- recorded merges ---------------------------------------------------------------------------------


def merges_frame(views: Sequence[MergeView]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "canonical": v.record.canonical_name,
                "alias": v.record.alias_name,
                "method": v.record.method,
                "score": v.record.score,
                "merged_at": v.record.merged_at,
                "merged_by": v.record.merged_by,
                "facts_brought": len({f.uuid for f in v.facts}),
                "uuid": v.record.uuid,
            }
            for v in views
        ],
        columns=["canonical", "alias", "method", "score", "merged_at", "merged_by", "facts_brought", "uuid"],
    )


def brought_frame(views: Sequence[MergeView]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "alias": v.record.alias_name,
                "canonical": v.record.canonical_name,
                "relation": f.relation,
                "fact": f.fact,
                "alias was": f.side,
                "other end": f.other,
                "current": f.current,
            }
            for v in views
            for f in v.facts
        ],
        columns=["alias", "canonical", "relation", "fact", "alias was", "other end", "current"],
    )


def render_recorded(lab: Lab, group_id: str, state: DealState, all_merges: Sequence[MergeView]) -> None:
    st.subheader("Recorded merges")
    if not all_merges:
        st.info(
            "No merges recorded on this deal: no entity has been merged into another here. "
            "Candidate duplicates are listed below."
        )
        _undone_merges(lab, group_id, state)
        return
    search = st.text_input(
        "Search merges",
        key=f"{NS}.search",
        placeholder="entity name, method, who, or words of a fact",
        bind="query-params",  # a link or a reload shows the same merges
    )
    views = [v for v in all_merges if v.matches(search)]
    canonicals = len({v.record.canonical_uuid for v in all_merges})
    st.caption(
        f"{len(all_merges)} merges into {canonicals} canonical entities"
        + (f" · {len(views)} match “{md(search, LABEL_CHARS)}”" if search.strip() else "")
        + ". A merged alias keeps its node and name; its facts now hang on the canonical entity."
    )
    show_table(
        merges_frame(views),
        f"{NS}.table",
        names=MERGE_NAMES,
        times=("merged_at",),
        config={"score": st.column_config.NumberColumn(format="%.2f"), "uuid": None},
    )
    st.markdown("**Facts each alias brought** (now on the canonical entity; undo puts them back)")
    show_table(
        brought_frame(views),
        f"{NS}.brought",
        config={"fact": st.column_config.TextColumn(width="large")},
    )
    _undone_merges(lab, group_id, state)


def _undone_merges(lab: Lab, group_id: str, state: DealState) -> None:
    undone = data.undone(lab, group_id, state)
    if undone:
        with st.expander(f"Undone merges ({len(undone)})"):
            show_table(
                pd.DataFrame(undone),
                f"{NS}.undone",
                names=MERGE_NAMES,
                times=("undone_at",),
                order=["canonical_name", "alias_name", "method", "score", "merged_by", "undone_by", "undone_at"],
                config={"score": st.column_config.NumberColumn(format="%.2f")},
            )


# --- candidates ----------------------------------------------------------------------------------------


CANDIDATE_COLUMNS = [
    "canonical (suggested)",
    "alias",
    "score",
    "auto_merge",
    "name_match",
    "shingle_jaccard",
    "name_cosine",
    "shared_neighbours",
]


def candidates_frame(
    report: CandidateReport, threshold: float, shared: dict[tuple[str, str], int] | None = None
) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "canonical (suggested)": c.canonical.name,
                "alias": c.alias.name,
                "score": c.score,
                "auto_merge": c.auto_merges_at(threshold),
                "name_match": c.signals.name_match,
                "shingle_jaccard": c.signals.shingle,
                "name_cosine": c.signals.cosine,
                "shared_neighbours": (shared or {}).get((c.canonical.uuid, c.alias.uuid)),
            }
            for c in report.candidates
        ],
        columns=CANDIDATE_COLUMNS,
    )


def rejected_frame(rejected: list[Rejection]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "entity": r.name_a,
                "other": r.name_b,
                "score": r.score,
                "rejected_by": r.rejected_by,
                "rejected_at": r.rejected_at,
            }
            for r in rejected
        ]
    )


def render_candidates(lab: Lab, group_id: str, state: DealState, report: CandidateReport) -> float:
    st.subheader("Candidate duplicates")
    st.caption(
        "Pairs that look like the same entity. Signals: **name match** (graphiti's exact normalised name = 1.0; "
        "same name without punctuation, spaces and legal forms like Inc/LLC = 0.9), **shingle Jaccard** "
        "(graphiti's 3-character shingles), **name cosine** (stored `name_embedding`). "
        f"**score = max(name match, {W_SHINGLE} × shingle + {W_COSINE} × cosine)**. Beside it, **shared neighbours**: "
        "the entities a fact links to both (two names of one company share its people and figures). "
        "Already-merged aliases and rejected pairs are left out."
    )
    threshold = st.slider(
        "Auto-merge threshold",
        0.5,
        1.0,
        DEFAULT_THRESHOLD,
        step=0.01,
        key=THRESHOLD,
        help="Pairs scoring at or above it would be merged automatically.",
        bind="query-params",
    )
    frame = candidates_frame(report, threshold, data.shared_neighbours(lab, group_id, state))
    left, mid, right = st.columns(3)
    left.metric(f"Would auto-merge at {threshold:.2f}", f"{int(frame['auto_merge'].sum())} / {len(frame)}")
    mid.metric("Pairs scored", f"{report.pairs_scored:,}")
    right.metric("Rejected pairs hidden", report.rejected_hidden)
    show_table(
        frame,
        f"{NS}.candidates",
        names=SIGNAL_NAMES,
        config={
            "canonical (suggested)": st.column_config.TextColumn(width="medium"),
            "alias": st.column_config.TextColumn(width="medium"),
            "score": st.column_config.ProgressColumn("Score", min_value=0, max_value=1, format="%.3f", width="small"),
            "name_match": st.column_config.NumberColumn(format="%.1f"),
            "shingle_jaccard": st.column_config.NumberColumn(format="%.3f"),
            "name_cosine": st.column_config.NumberColumn(format="%.3f"),
            "auto_merge": st.column_config.CheckboxColumn(f"auto-merge at {threshold:.2f}"),
        },
    )
    how = "blocked pairs (same core name, shared MinHash band, nearest names)" if report.blocked else "all pairs"
    st.caption(
        f"{report.scanned} of {report.entities} entities scanned ({report.aliases_left_out} merged aliases left out), "
        f"{how}; listed when score ≥ 0.5."
        + (" Big deal: only the first entities were scanned." if report.capped else "")
    )
    rejected = data.rejections(lab, group_id, state)
    if rejected:
        with st.expander(f"Rejected pairs ({len(rejected)}): never suggested again"):
            show_table(
                rejected_frame(rejected),
                f"{NS}.rejected",
                names=MERGE_NAMES,
                times=("rejected_at",),
                config={"score": st.column_config.NumberColumn(format="%.2f")},
            )
    return threshold


def labelled_frame(evaluation: LabelledEvaluation, threshold: float) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "a": p.name_a,
                "b": p.name_b,
                "same": p.same,
                "merged in demo": p.merged,
                "name_match": p.signals.name_match,
                "shingle_jaccard": p.signals.shingle,
                "name_cosine": p.signals.cosine,
                "score": p.signals.score,
                f"auto-merge at {threshold:.2f}": p.signals.score >= threshold,
            }
            for p in sorted(evaluation.pairs, key=lambda p: -p.signals.score)
        ]
    )


def render_precision_recall(lab: Lab, group_id: str, state: DealState, threshold: float) -> None:
    st.subheader("Precision and recall on the labelled pairs")
    evaluation = data.labelled(lab, group_id, state)
    if evaluation is None:
        st.info("This deal has no labelled entity pairs (only deals built from the demo data do).")
        return
    positives = sum(p.same for p in evaluation.pairs)
    st.caption(
        f"{len(evaluation.pairs)} labelled pairs ({positives} true duplicates, the demo's recorded merges among them, "
        "scored from their names). Auto-merge = score ≥ threshold."
    )
    shown = [("default", DEFAULT_THRESHOLD)]
    if abs(threshold - DEFAULT_THRESHOLD) > 1e-9:
        shown.append(("slider", threshold))
    cols = iter(st.columns(3 * len(shown)))
    for label, t in shown:
        point = evaluation.at(t)
        next(cols).metric(f"Precision at {t:.2f} ({label})", _pct(point.precision))
        next(cols).metric(f"Recall at {t:.2f} ({label})", _pct(point.recall))
        next(cols).metric(
            f"Wrong merges at {t:.2f}",
            point.false_positives,
            help=f"Of the pairs that would auto-merge, those labelled different ({point.true_positives} right).",
        )
    st.plotly_chart(precision_recall_chart(evaluation.points, threshold, DEFAULT_THRESHOLD), key=f"{NS}.pr")
    with st.expander("Labelled pairs and their signals"):
        show_table(
            labelled_frame(evaluation, threshold),
            f"{NS}.labelled",
            names={**SIGNAL_NAMES, "a": "Entity", "b": "Other", "same": "Same entity"},
            config={
                c: st.column_config.NumberColumn(format="%.3f") for c in ("shingle_jaccard", "name_cosine", "score")
            },
        )


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"
