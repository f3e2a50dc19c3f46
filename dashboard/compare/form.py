"""Compare's controls: the query, then side A and side B, each with its own first-stage recipe, reranker, N and k,
and the one first stage (exact or vector index) both sides share.

Keys follow the URL contract of `dashboard/common/links.py`: `compare.q`, `compare.a.recipe`, `compare.a.reranker`,
`compare.a.n`, `compare.a.k`, `compare.b.*`, `compare.first`. An old link's `compare.reranker` (and `compare.n`,
`compare.k`) still opens as before: the reranker is B's, N and k are both sides'.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from dashboard.common.page_state.url import link_id, take_renamed
from dashboard.common.query_form import (
    MAX_SHOWN_K,
    checked,
    first_stage_control,
    query_box,
    refuse_unicode_numbers,
    setting_controls,
)
from pipeline.api import Lab, reranker_choices
from pipeline.api.models import MAX_CANDIDATES, Setting

NS = "compare"
SIDES = ("a.", "b.")
DEFAULTS = {"a.": "none", "b.": "local"}  # the default comparison: without vs with reranking
LEGACY = {"reranker": ("b.",), "n": ("a.", "b."), "k": ("a.", "b.")}
LEGACY_NAMES = {"reranker": "reranker", "n": "N", "k": "top-k"}


@dataclass(frozen=True)
class CompareRequest:
    query: str
    group_id: str
    a: Setting  # each side's first stage is the form's one first-stage control
    b: Setting


def _legacy_params(lab: Lab) -> None:
    """Open an old link (`compare.reranker`, `compare.n`, `compare.k`) as its new keys, then drop the old ones."""
    names = {c.name for c in reranker_choices(lab.settings)}

    def parse(old: str, raw: str) -> str | int | None:
        if old == "reranker":
            return raw if raw in names else None
        if (number := link_id(raw)) is None:
            return None
        ok = 5 <= number <= MAX_CANDIDATES and number % 5 == 0 if old == "n" else 1 <= number <= MAX_SHOWN_K
        return number if ok else None

    rules = {
        "reranker": "a reranker offered here",
        "n": f"a multiple of 5 from 5 to {MAX_CANDIDATES}",
        "k": f"a whole number from 1 to {MAX_SHOWN_K}",
    }
    for old, sides in LEGACY.items():
        new = [f"{NS}.{side}{old}" for side in sides]
        take_renamed(f"{NS}.{old}", new, lambda raw, old=old: parse(old, raw), LEGACY_NAMES[old], rules[old])


def compare_form(lab: Lab, group_id: str) -> CompareRequest | None:
    _legacy_params(lab)
    refuse_unicode_numbers(NS, SIDES)
    query = query_box(NS, lab, group_id, SIDES)
    settings = {}
    for side, column in zip(SIDES, st.columns(2, border=True), strict=True):
        with column:
            st.markdown(f"**Side {side[0].upper()}**")
            settings[side] = setting_controls(NS, lab, side, with_none=True, default=DEFAULTS[side])
    first_stage = first_stage_control(NS, lab, group_id)
    if not query.strip():
        st.info("Type a query or pick an example to run it.")
        return None
    a, b = (checked(replace(settings[s], first_stage=first_stage)) for s in SIDES)
    return CompareRequest(query, group_id, a, b)
