"""The Timeline page's graph reads, cached per deal and deal state (`dashboard/common/deal_state.py`).

Every read loads the deal's facts; with the cache, a widget change (date range, channels, a toggle)
redraws from memory. A correction or its undo changes the deal's state, so the next run reads fresh
facts; `clear()` also drops the old entries at once. Selections are keyed by their plain kind and value.
"""

from __future__ import annotations

from datetime import datetime

import streamlit as st

from dashboard.common.deal_state import DealState
from dashboard.common.runtime import run
from pipeline.lab import Lab
from pipeline.temporal.records import (
    AsOfAnswer,
    EntityMatch,
    Selection,
    SelectionKind,
    Supersession,
    SupersessionCounts,
    Timeline,
)
from pipeline.temporal.timeline import as_of, relation_names, search_entities, supersession_report, timeline

CACHED = st.cache_data(show_spinner=False, max_entries=64)


@CACHED
def relations(_lab: Lab, group_id: str, state: DealState) -> list[tuple[str, int]]:
    return run(relation_names(_lab, group_id))


@CACHED
def entities_named(_lab: Lab, group_id: str, state: DealState, text: str) -> list[EntityMatch]:
    return run(search_entities(_lab, group_id, text))


@CACHED
def timeline_of(_lab: Lab, group_id: str, state: DealState, kind: SelectionKind, value: str) -> Timeline:
    return run(timeline(_lab, group_id, Selection(kind, value)))


@CACHED
def as_of_answer(
    _lab: Lab, group_id: str, state: DealState, kind: SelectionKind, value: str, when: datetime
) -> AsOfAnswer:
    return run(as_of(_lab, group_id, Selection(kind, value), when))


@CACHED
def supersessions(_lab: Lab, group_id: str, state: DealState) -> tuple[list[Supersession], SupersessionCounts]:
    return run(supersession_report(_lab, group_id))


def clear() -> None:
    for cached in (relations, entities_named, timeline_of, as_of_answer, supersessions):
        cached.clear()
