"""The Merges page's admin actions: merge an alias into a canonical entity, reject a pair, undo a merge.

Each runs on a button click (a merge or an undo after a confirmation), leaves its one-line outcome as a flash
beside the actions, clears the page's cached data and reruns the page, so every table is fresh.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from dashboard.common.admin import ask, confirmed, read_only_notice
from dashboard.common.deal_state import DealState
from dashboard.common.page_state.flash import flash, show_flash
from dashboard.common.runtime import run
from dashboard.common.tables import stamp
from dashboard.common.text import OPTION_CHARS, md, plain
from dashboard.merges import data
from pipeline.api import Lab
from pipeline.api.models import CandidateReport, EntityRef, MergeView
from pipeline.errors import RetrievalLabError

NS = "merges"
FLASH = f"{NS}.flash"
MERGE_PARAM = f"{NS}.merge"  # a one-shot link parameter (the audit log's): the merge to undo
LINKED = f"{NS}.linked"  # the merge the audit log's link named, until the undo picker takes it
UNDO_PICK = f"{NS}.undo_pick"


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
        record = run(lab.merges.merge_entities(group_id, alias, canonical, actor))
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
            r = run(lab.merges.reject_pair(group_id, canonical, alias, actor))
            return f"Rejected {md(repr(r.name_a))} / {md(repr(r.name_b))}: this pair will not be suggested again."

        _act(do_reject)

    st.markdown("**Undo a merge** — the facts go back to the alias and the merge record is removed")
    by_uuid = {v.record.uuid: v.record for v in merges}
    _keep_valid(UNDO_PICK, list(by_uuid))
    linked = st.session_state.pop(LINKED, None)
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
            result = run(lab.merges.undo_merge(group_id, picked, actor))
            extra = f"; {len(result.missing)} no longer exist" if result.missing else ""
            return (
                f"Undid the merge of {md(repr(result.record.alias_name))} into "
                f"{md(repr(result.record.canonical_name))}: "
                f"{result.restored} fact(s) back on the alias{extra}."
            )

        _act(do_undo)
