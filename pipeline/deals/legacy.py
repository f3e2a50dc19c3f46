"""Earlier versions kept their bookkeeping as a `RetrievalLabDeal` node inside each deal's graph. At open,
each such node is copied into the store (unless the store already has a row for that deal) and, where the
graph may be written, deleted: a read-only attach only reads it."""

from __future__ import annotations

from pipeline.deals.records import GROUP_ID_PATTERN, DealRecord
from pipeline.deals.repo import insert_deal_if_absent
from pipeline.graph.backend import GraphBackend
from pipeline.store import Store


async def migrate_legacy_deals(backend: GraphBackend, store: Store) -> list[str]:
    """Move every `RetrievalLabDeal` node into the store; the group_ids that had one."""
    found = await backend.cypher.legacy_deals()
    for group_id, props in sorted(found.items()):
        if not GROUP_ID_PATTERN.fullmatch(group_id):
            continue
        insert_deal_if_absent(store, DealRecord.from_legacy_node(group_id, props))
        if not backend.is_read_only(group_id):
            await backend.cypher.delete_legacy_deal(group_id)
    return sorted(found)
