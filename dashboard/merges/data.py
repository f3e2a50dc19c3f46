"""The Merges page's data, cached per deal and deal state (`dashboard/common/deal_state.py`).

Scoring every entity pair is the page's heavy part: with the cache, a widget change (search, threshold,
a pick) reruns the page without rescoring. An admin action changes the deal's state, so the next run
reads fresh data; `clear()` also drops the old entries at once. The lab is not hashable: it is passed
as `_lab` and left out of the key.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard.common.deal_state import DealState
from dashboard.common.runtime import run
from dashboard.common.shared_cache import shared_cache
from pipeline.api import Lab
from pipeline.api.models import (
    CandidateReport,
    EntityRef,
    LabelledEvaluation,
    MergeView,
    OperatingPoints,
    PairSignals,
    Rejection,
)

CACHED = shared_cache(max_entries=32)  # frozen records: shared, not copied on every hit
STORE_READS = st.cache_data(show_spinner=False, max_entries=32)  # small rows from the store (dicts: copied)


@CACHED
def merges(_lab: Lab, group_id: str, state: DealState) -> tuple[MergeView, ...]:
    return tuple(run(_lab.merges.list_merges(group_id)))


@CACHED
def candidates(_lab: Lab, group_id: str, state: DealState) -> CandidateReport:
    return run(_lab.merges.find_candidates(group_id))


@CACHED
def shared_neighbours(_lab: Lab, group_id: str, state: DealState) -> dict[tuple[str, str], int]:
    """Per candidate pair (canonical uuid, alias uuid): the entities a fact links to both."""
    return run(_lab.merges.shared_neighbours(group_id, list(candidates(_lab, group_id, state).candidates)))


@CACHED
def labelled(_lab: Lab, group_id: str, state: DealState) -> LabelledEvaluation | None:
    return run(_lab.ingest.labelled_evaluation(group_id))


@CACHED
def operating(_lab: Lab, group_id: str, state: DealState) -> OperatingPoints | None:
    """Both merge rules on the demo's labels and every pair decided on the deal (a decision is an admin action: it
    changes the state)."""
    bundled = labelled(_lab, group_id, state)
    return run(_lab.merges.operating_points(group_id, bundled.pairs if bundled else ()))


@CACHED
def entities(_lab: Lab, group_id: str, state: DealState) -> tuple[EntityRef, ...]:
    return tuple(run(_lab.merges.list_entities(group_id)))


@CACHED
def pair_signals(_lab: Lab, group_id: str, state: DealState, uuid_a: str, uuid_b: str) -> PairSignals:
    return run(_lab.merges.score_entities(group_id, uuid_a, uuid_b))


@STORE_READS
def rejections(_lab: Lab, group_id: str, state: DealState) -> list[Rejection]:
    return _lab.merges.rejected_pairs(group_id)


@STORE_READS
def undone(_lab: Lab, group_id: str, state: DealState) -> list[dict[str, Any]]:
    return _lab.merges.undone_merges(group_id)


def clear() -> None:
    for cached in (
        merges,
        candidates,
        shared_neighbours,
        labelled,
        operating,
        entities,
        pair_signals,
        rejections,
        undone,
    ):
        cached.clear()
