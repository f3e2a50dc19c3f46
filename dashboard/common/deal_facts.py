"""Every fact of a deal as the Timeline and Evidence pages read them, once per deal state (`deal_state.py`) for all
their views and sessions (~2 s at 10,000 facts); frozen records, shared and not copied (`shared_cache`)."""

from __future__ import annotations

from dashboard.common.deal_state import DealState
from dashboard.common.runtime import run
from dashboard.common.shared_cache import shared_cache
from pipeline.api import Lab
from pipeline.api.models import FactRow


@shared_cache(max_entries=8)
def deal_facts(_lab: Lab, group_id: str, state: DealState) -> tuple[FactRow, ...]:
    return tuple(run(_lab.temporal.load_facts(group_id)))
