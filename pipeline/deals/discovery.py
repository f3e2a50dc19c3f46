"""Deals are found in the graph itself: every group_id that holds graphiti `Entity` or `Episodic` nodes.

Whoever wrote it (graphiti's own `add_episode`, our loaders), a group is a deal. What the graph cannot say
(a display name, what built it, the hash of our loader's inputs, a read-only flag) comes from our SQLite
store (`repo.py`); a deal we did not build is named by its group_id, with source "graphiti". The vector
dimension is read from the graph: one stored vector, measured.
"""

from __future__ import annotations

from dataclasses import replace

from pipeline.deals.records import DealCounts, DealInfo, DealRecord, validate_group_id
from pipeline.deals.repo import deal_record, deal_records
from pipeline.graph.backend import GraphBackend
from pipeline.store import Store


async def get_deal(backend: GraphBackend, store: Store, group_id: str) -> DealInfo | None:
    """The deal, or None when the group holds no graphiti node (asking never creates a graph)."""
    validate_group_id(group_id)
    if not await backend.cypher.holds_group(group_id):
        return None
    return await _info(backend, group_id, deal_record(store, group_id))


async def list_deals(backend: GraphBackend, store: Store, allowed: list[str] | None = None) -> list[DealInfo]:
    """Every deal in the graph, sorted by group_id (only those in `allowed`, when a deployment restricts them)."""
    groups = await backend.cypher.group_ids()
    if allowed is not None:
        groups = [g for g in groups if g in allowed]
    records = deal_records(store)
    return [await _info(backend, g, records.get(g)) for g in groups]


async def _info(backend: GraphBackend, group_id: str, record: DealRecord | None) -> DealInfo:
    """The deal as the graph and the store describe it; read-only when its flag is set or the whole backend is
    (RETRIEVAL_LAB_READ_ONLY)."""
    info = DealInfo.of(group_id, record, await backend.cypher.stored_dimension(group_id))
    return replace(info, read_only=True) if backend.is_read_only(group_id) else info


async def deal_counts(backend: GraphBackend, group_id: str) -> DealCounts:
    return DealCounts(**await backend.cypher.deal_counts(group_id))
