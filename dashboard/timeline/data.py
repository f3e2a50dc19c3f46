"""The Timeline page's graph reads, cached per deal and deal state (`dashboard/common/deal_state.py`).

Every read loads the deal's facts; with the cache, a widget change (date range, channels, a toggle)
redraws from memory, and the results (frozen records) are shared, not copied (`shared_cache`). A correction
or its undo changes the deal's state, so the next run reads fresh facts; `clear()` also drops the old entries
at once. Selections are keyed by their plain kind and value.
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import date, datetime

import pandas as pd
import plotly.graph_objects as go

from dashboard.common.deal_facts import deal_facts
from dashboard.common.deal_state import DealState
from dashboard.common.runtime import run
from dashboard.common.shared_cache import shared_cache
from dashboard.timeline.charts import as_of_frames, supersession_frame, timeline_figure
from pipeline.api import Lab
from pipeline.api.models import (
    AsOfAnswer,
    EntityMatch,
    FactSelection,
    InvalidationAudit,
    SelectionKind,
    Supersession,
    SupersessionCounts,
    Timeline,
)

CACHED = shared_cache(max_entries=64)  # frozen records: shared, not copied on every hit


@CACHED
def relations(_lab: Lab, group_id: str, state: DealState) -> tuple[tuple[str, int], ...]:
    return tuple(run(_lab.temporal.relation_names(group_id)))


@CACHED
def entities_named(_lab: Lab, group_id: str, state: DealState, text: str) -> tuple[EntityMatch, ...]:
    return tuple(run(_lab.temporal.search_entities(group_id, text)))


@CACHED
def timeline_of(_lab: Lab, group_id: str, state: DealState, kind: SelectionKind, value: str) -> Timeline:
    return run(_lab.temporal.timeline(group_id, FactSelection(kind, value), deal_facts(_lab, group_id, state)))


@CACHED
def as_of_answer(
    _lab: Lab, group_id: str, state: DealState, kind: SelectionKind, value: str, when: datetime
) -> AsOfAnswer:
    return run(_lab.temporal.as_of(group_id, FactSelection(kind, value), when, deal_facts(_lab, group_id, state)))


@CACHED
def supersessions(_lab: Lab, group_id: str, state: DealState) -> tuple[tuple[Supersession, ...], SupersessionCounts]:
    rows, counts = run(_lab.temporal.supersession_report(group_id, deal_facts(_lab, group_id, state)))
    return tuple(rows), counts


@CACHED
def invalidation_audit(_lab: Lab, group_id: str, state: DealState) -> InvalidationAudit:
    return run(_lab.temporal.invalidation_audit(group_id, deal_facts(_lab, group_id, state)))


@shared_cache(max_entries=8)
def supersession_table(_lab: Lab, group_id: str, state: DealState) -> tuple[pd.DataFrame, SupersessionCounts]:
    """The supersession list as shown (tens of ms to build for thousands of rows). Pages only read it."""
    rows, counts = supersessions(_lab, group_id, state)
    return supersession_frame(rows), counts


@shared_cache(max_entries=16)
def as_of_tables(
    _lab: Lab, group_id: str, state: DealState, kind: SelectionKind, value: str, when: datetime
) -> tuple[AsOfAnswer, pd.DataFrame, pd.DataFrame]:
    answer = as_of_answer(_lab, group_id, state, kind, value, when)
    return (answer, *as_of_frames(answer))


@shared_cache(max_entries=16)
def figure(
    drawn: Hashable, _part: Timeline, window: tuple[date | None, date | None], as_of: date | None, title: str
) -> go.Figure:
    """The chart of `_part`, built once per `drawn` (deal state, selection, filters, page, today, as-of date:
    all that decides `_part` and the drawing). Kept as the object itself, not a pickled copy: a Plotly figure is
    rebuilt and validated on unpickling, which costs as much as building it. `st.plotly_chart` only reads it."""
    return timeline_figure(_part, window=window, as_of=as_of, title=title)


def clear() -> None:
    for cached in (
        deal_facts,
        relations,
        entities_named,
        timeline_of,
        as_of_answer,
        supersessions,
        invalidation_audit,
        supersession_table,
        as_of_tables,
        figure,
    ):
        cached.clear()
