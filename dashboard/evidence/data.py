"""The Evidence page's reads, cached per deal state and shared by sessions (`shared_cache`): a neighbourhood and its
picture are the same for everyone until the deal changes; where a fact ranks for a query is ranked once."""

from __future__ import annotations

import plotly.graph_objects as go

from dashboard.common.deal_facts import deal_facts
from dashboard.common.deal_state import DealState
from dashboard.common.runtime import run
from dashboard.common.shared_cache import shared_cache
from dashboard.evidence.graph import evidence_figure
from pipeline.api import Lab
from pipeline.api.models import FactLoss, Neighbourhood, Setting


@shared_cache(max_entries=8)
def default_focus(_lab: Lab, group_id: str, state: DealState) -> str | None:
    return run(_lab.temporal.default_focus(group_id, deal_facts(_lab, group_id, state)))


@shared_cache(max_entries=8)
def known(_lab: Lab, group_id: str, state: DealState) -> tuple[frozenset[str], frozenset[str]]:
    """The deal's fact uuids and entity uuids: what a link may name."""
    facts = deal_facts(_lab, group_id, state)
    return frozenset(f.uuid for f in facts), frozenset(e for f in facts for e in (f.source_uuid, f.target_uuid))


@shared_cache(max_entries=32)
def neighbourhood(_lab: Lab, group_id: str, state: DealState, uuid: str) -> Neighbourhood:
    return run(_lab.temporal.neighbourhood(group_id, uuid, deal_facts(_lab, group_id, state)))


@shared_cache(max_entries=32)
def figure(group_id: str, state: DealState, uuid: str, _nb: Neighbourhood) -> go.Figure:
    """The picture of `_nb` (the neighbourhood of `uuid` in that state), built once; `st.plotly_chart` only reads it."""
    return evidence_figure(_nb)


@shared_cache(max_entries=64)
def sighting(_lab: Lab, group_id: str, state: DealState, query: str, setting: str, uuid: str) -> FactLoss:
    """Where the fact ranks for `query` under the setting (its text), through the one `rank()`."""
    return run(_lab.why.fact(group_id, query, Setting.parse(setting, "setting"), uuid))
