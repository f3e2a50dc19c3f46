"""Deals: discovered in the graph (every group_id with graphiti nodes), with our bookkeeping in SQLite.

`discovery.py` finds deals and reads their counts and stored vector dimension; `repo.py` keeps our rows
(name, source, embedder, content hash, read-only flag); `require.py` is the check every operation starts
with; `access.py` applies the deployment's allow-list (the Lab's store is scoped to it, and every
feature's repo asks it); `embedder_match.py` says which embedder setting fits a deal; `repo.py` also moves
the `RetrievalLabDeal` nodes of earlier versions into the store; the Lab (`pipeline/lab.py`) sets the per-deal
read-only flag; `summary.py` makes the rows `deals`, `status` and the pages show.
"""

from pipeline.deals.discovery import deal_counts, get_deal, list_deals
from pipeline.deals.embedder_match import embedder_mismatch, match_label
from pipeline.deals.records import GROUP_ID_PATTERN, DealCounts, DealInfo, DealRecord, validate_group_id
from pipeline.deals.repo import deal_record, forget_content_hash, save_deal
from pipeline.deals.require import find_deal, require_deal

__all__ = [
    "GROUP_ID_PATTERN",
    "DealCounts",
    "DealInfo",
    "DealRecord",
    "deal_counts",
    "deal_record",
    "embedder_mismatch",
    "find_deal",
    "forget_content_hash",
    "get_deal",
    "list_deals",
    "match_label",
    "require_deal",
    "save_deal",
    "validate_group_id",
]
