"""The check every operation on a deal starts with: it exists, this deployment may show it, and the
configured embedder fits its stored vectors. Each refusal is one line saying what to do."""

from __future__ import annotations

from pipeline.deals.discovery import get_deal, list_deals
from pipeline.deals.embedder_match import embedder_mismatch
from pipeline.deals.records import DealInfo, validate_group_id
from pipeline.embedders.base import EmbedderInfo
from pipeline.errors import EmbedderMismatch, UnknownDeal
from pipeline.graph.backend import GraphBackend
from pipeline.store import Store


async def find_deal(backend: GraphBackend, store: Store, group_id: str, allowed: list[str] | None = None) -> DealInfo:
    """The deal, or UnknownDeal (absent, or not allowed here) naming the deals there are."""
    validate_group_id(group_id)
    deal = None if allowed is not None and group_id not in allowed else await get_deal(backend, store, group_id)
    if deal is None:
        known = ", ".join(d.group_id for d in await list_deals(backend, store, allowed)) or "none"
        raise UnknownDeal(f"No deal named {group_id!r} in the {backend.label}. Known deals: {known}.")
    return deal


async def require_deal(
    backend: GraphBackend, store: Store, group_id: str, embedder: EmbedderInfo, allowed: list[str] | None = None
) -> DealInfo:
    """The deal, or UnknownDeal, or EmbedderMismatch when the configured embedder does not fit its vectors."""
    deal = await find_deal(backend, store, group_id, allowed)
    if problem := embedder_mismatch(deal, embedder):
        raise EmbedderMismatch(problem)
    return deal
