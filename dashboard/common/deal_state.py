"""A cheap stamp of a deal's state, for page caches (`st.cache_data`) to key on.

It changes whenever what a page shows can have changed: the deal is rebuilt (its creation time), its
graph gains or loses facts, entities, episodes or merges (its counts), or an admin action is recorded
for it (the newest audit id: merges, rejections, undos, corrections, demo resets).
"""

from __future__ import annotations

from dataclasses import astuple

from dashboard.common.runtime import run
from pipeline.api import Lab
from pipeline.api.models import DealInfo

DealState = tuple[str | int, ...]


def deal_state(lab: Lab, deal: DealInfo) -> DealState:
    counts = run(lab.deal_book.counts(deal.group_id))
    newest = lab.audit.log(deal.group_id, limit=1)
    return (deal.created_at, *astuple(counts), newest[0].id if newest else 0)
