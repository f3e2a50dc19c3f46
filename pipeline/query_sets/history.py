"""A deal's queries recorded in History (asked on the dashboard or with `python -m pipeline query`) as an unjudged
query set: the newest distinct ones, to pool and judge (pipeline/pools)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.errors import InvalidInput
from pipeline.history.repo import asked_queries
from pipeline.query_sets.logs import SetRead, history_read

if TYPE_CHECKING:
    from pipeline.lab import Lab  # annotations only: Lab stands above the features

HISTORY_SET_NAME = "history"
HISTORY_LIMIT = 200


async def read_history(lab: Lab, group_id: str, limit: int = HISTORY_LIMIT) -> SetRead:
    """The newest `limit` distinct queries of the deal's History, or one line when it has none."""
    await lab.deal(group_id)  # an unknown deal is named as one, not as a deal with no History
    read = history_read(asked_queries(lab.store, group_id), group_id, limit)
    if not read.queries:
        raise InvalidInput(f"Deal {group_id!r} has no queries in History yet: nothing to import.")
    return read
