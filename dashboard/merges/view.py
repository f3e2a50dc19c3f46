"""The Entity merges page: recorded merges, candidate duplicates, precision/recall, admin actions.

Everything is computed by `pipeline/merges` and cached per deal state (`dashboard/merges/data.py`); this
module only lays it out. Admin actions run on a button click, leave a one-line message in session state,
and rerun the page so every table is fresh.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from dashboard.common.admin import ask, confirmed, read_only_notice
from dashboard.common.deal_state import DealState, deal_state
from dashboard.common.page_state.flash import flash, show_flash
from dashboard.common.page_state.url import take_link
from dashboard.common.runtime import run
from dashboard.common.tables import show_table, stamp
from dashboard.common.text import LABEL_CHARS, OPTION_CHARS, md, plain
from dashboard.merges import data
from dashboard.merges.charts import precision_recall_chart
from pipeline.deals import DealInfo
from pipeline.errors import RetrievalLabError
from pipeline.lab import Lab
from pipeline.merges.actions import (
    merge_entities,
    reject_pair,
    undo_merge,
)
from pipeline.merges.candidates import CandidateReport, EntityRef
from pipeline.merges.labelled import LabelledEvaluation
from pipeline.merges.records import MergeView
from pipeline.merges.repo import Rejection
from pipeline.merges.scoring import DEFAULT_THRESHOLD, W_COSINE, W_SHINGLE

NS = "merges"
FLASH = f"{NS}.flash"
THRESHOLD = f"{NS}.threshold"
MERGE_PARAM = f"{NS}.merge"  # a one-shot link parameter (the audit log's): the merge to undo
UNDO_PICK = f"{NS}.undo_pick"
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
SIGNAL_NAMES = {"name_match": "Name match", "shingle_jaccard": "Shingle Jaccard", "name_cosine": "Name cosine"}


def render_merges_page(lab: Lab, deal: DealInfo, actor: str | None) -> None:
    take_link(MERGE_PARAM, f"{NS}.linked")  # opened from the audit log on a merge
    group_id, state = deal.group_id, deal_state(lab, deal)
    merges = data.merges(lab, group_id, state)
    report = data.candidates(lab, group_id, state)
    render_recorded(lab, group_id, state, merges)
    threshold = render_candidates(lab, group_id, state, report)
    render_precision_recall(lab, group_id, state, threshold)
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
]


def candidates_frame(report: CandidateReport, threshold: float) -> pd.DataFrame:
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
        f"**score = max(name match, {W_SHINGLE} × shingle + {W_COSINE} × cosine)**. "
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
    frame = candidates_frame(report, threshold)
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


# --- admin actions -------------------------------------------------------------------------------------


def _act(action: Callable[[], str]) -> None:
    try:
        flash(FLASH, action())
    except RetrievalLabError as exc:
        flash(FLASH, md(exc), "error")
    data.clear()
    st.rerun()


def _pick_pair(options: dict[str, tuple[str, str]]) -> None:
    picked = st.session_state.get(f"{NS}.pair")
    if picked in options:
        st.session_state[f"{NS}.canonical"], st.session_state[f"{NS}.alias"] = options[picked]


PICK_PAIR = "Pick a candidate, or choose the two entities below…"


def _keep_valid(key: str, options: list[Any]) -> None:
    """A pick that is no longer offered (a merged or rejected pair) is cleared: set to None, not deleted, since the
    browser keeps showing a deleted widget value."""
    if key in st.session_state and st.session_state[key] not in options:
        st.session_state[key] = None


def render_admin(
    lab: Lab,
    group_id: str,
    state: DealState,
    actor: str | None,
    merges: Sequence[MergeView],
    report: CandidateReport,
) -> None:
    st.subheader("Merge, reject, undo")
    if actor is None:
        read_only_notice()
        return
    show_flash(FLASH, icon=False)

    aliases = {v.record.alias_uuid for v in merges}
    entities: dict[str, EntityRef] = {e.uuid: e for e in data.entities(lab, group_id, state) if e.uuid not in aliases}
    uuids = list(entities)
    pairs = {
        f"{c.alias.name} → {c.canonical.name} ({c.score:.2f})": (c.canonical.uuid, c.alias.uuid)  # as undo says
        for c in report.candidates
    }
    for key, options in ((f"{NS}.canonical", uuids), (f"{NS}.alias", uuids), (f"{NS}.pair", [None, *pairs])):
        _keep_valid(key, options)

    def name(u: str) -> str:
        e = entities[u]
        return plain(f"{e.name} ({e.facts} facts)", OPTION_CHARS)

    st.markdown("**Merge an alias into a canonical entity, or reject a pair**")
    st.selectbox(
        "Start from a candidate pair",
        [None, *pairs],
        key=f"{NS}.pair",
        on_change=_pick_pair,
        args=(pairs,),
        format_func=lambda p: PICK_PAIR if p is None else plain(p, OPTION_CHARS),
        placeholder=PICK_PAIR,  # shown once a merged or rejected pair's pick is cleared
    )
    left, right = st.columns(2)
    canonical = left.selectbox("Canonical entity (kept)", uuids, key=f"{NS}.canonical", format_func=name, index=None)
    alias = right.selectbox("Alias (merged into it)", uuids, key=f"{NS}.alias", format_func=name, index=None)
    if canonical and alias and canonical != alias:
        s = data.pair_signals(lab, group_id, state, alias, canonical)
        cos = "n/a" if s.cosine is None else f"{s.cosine:.3f}"
        st.caption(
            f"Score **{s.score:.3f}** (name match {s.name_match:.1f} · shingle {s.shingle:.3f} · cosine {cos}). "
            f"Merging moves the alias's {entities[alias].facts} fact link(s) to the canonical entity."
        )
    b1, b2, _ = st.columns([1, 1, 4])
    merge_summary = ""
    if canonical and alias and canonical != alias:
        moved = entities[alias].facts
        merge_summary = (
            f"Merge {md(repr(entities[alias].name))} into {md(repr(entities[canonical].name))}: "
            f"{moved} fact{'' if moved == 1 else 's'} move to {md(repr(entities[canonical].name))}."
        )

    def do_merge() -> str:
        assert canonical and alias
        record = run(merge_entities(lab, group_id, alias, canonical, actor))
        moved = len({m["fact"] for m in record.moved_facts})
        what = f"{md(repr(record.alias_name))} into {md(repr(record.canonical_name))}"
        return f"Merged {what}: {moved} fact(s) moved (score {record.score})."

    if b1.button("Merge…", key=f"{NS}.merge", type="primary", disabled=not (canonical and alias)):
        if merge_summary:
            ask(f"{NS}.merge", merge_summary)
        else:  # one entity twice: nothing to confirm, the pipeline refuses it in one line
            _act(do_merge)
    if confirmed(f"{NS}.merge", merge_summary):
        _act(do_merge)
    if b2.button("Reject pair", key=f"{NS}.reject", disabled=not (canonical and alias)):
        assert canonical and alias

        def do_reject() -> str:
            r = run(reject_pair(lab, group_id, canonical, alias, actor))
            return f"Rejected {md(repr(r.name_a))} / {md(repr(r.name_b))}: this pair will not be suggested again."

        _act(do_reject)

    st.markdown("**Undo a merge** — the facts go back to the alias and the merge record is removed")
    by_uuid = {v.record.uuid: v.record for v in merges}
    _keep_valid(UNDO_PICK, list(by_uuid))
    linked = st.session_state.pop(f"{NS}.linked", None)
    if linked in by_uuid:
        st.session_state[UNDO_PICK] = linked
        record = by_uuid[linked]
        st.info(
            f"From the audit log: the merge of {md(repr(record.alias_name))} into "
            f"{md(repr(record.canonical_name))} is picked below.",
            icon=":material/receipt_long:",
        )
    elif linked is not None:
        st.warning("The merge opened from the audit log is no longer recorded: nothing to undo.")
    picked = st.selectbox(
        "Merge to undo",
        list(by_uuid),
        key=UNDO_PICK,
        index=None,
        placeholder="Pick a merge…",
        format_func=lambda u: plain(
            f"{by_uuid[u].alias_name} → {by_uuid[u].canonical_name} "
            f"({by_uuid[u].method}, {stamp(by_uuid[u].merged_at)} UTC, {by_uuid[u].merged_by})",
            OPTION_CHARS,
        ),
    )
    undo_summary = ""
    if picked is not None:
        r = by_uuid[picked]
        back = len({m["fact"] for m in r.moved_facts})
        undo_summary = (
            f"Undo the merge of {md(repr(r.alias_name))} into {md(repr(r.canonical_name))}: "
            f"{back} fact{'' if back == 1 else 's'} go back to {md(repr(r.alias_name))}."
        )
    if st.button("Undo merge…", key=f"{NS}.undo", disabled=picked is None):
        ask(f"{NS}.undo", undo_summary)
    if confirmed(f"{NS}.undo", undo_summary):
        assert picked is not None

        def do_undo() -> str:
            result = run(undo_merge(lab, group_id, picked, actor))
            extra = f"; {len(result.missing)} no longer exist" if result.missing else ""
            return (
                f"Undid the merge of {md(repr(result.record.alias_name))} into "
                f"{md(repr(result.record.canonical_name))}: "
                f"{result.restored} fact(s) back on the alias{extra}."
            )

        _act(do_undo)
