"""The deal registry: one `RetrievalLabDeal` node per deal, inside the deal's own graph.

It records what built the deal (source, content hash) and which embedder made its vectors, so that a
query with another embedder is refused instead of returning nonsense. Graphiti's searches only match
`Entity`, `Episodic` and `RELATES_TO`, so this node never shows up in retrieval.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.embedders.base import EmbedderInfo
from pipeline.errors import EmbedderMismatch, InvalidInput, UnknownDeal
from pipeline.graph.backend import GraphBackend
from pipeline.utc import now_iso as now_iso  # re-exported: deals are stamped with it

GROUP_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # graphiti's own rule, with a length cap


@dataclass(frozen=True)
class DealInfo:
    group_id: str
    name: str
    description: str
    source: str  # "demo" or "beir:<folder name>"
    embedder_model: str
    embedder_dim: int
    content_hash: str
    created_at: str

    @property
    def embedder(self) -> EmbedderInfo:
        return EmbedderInfo(self.embedder_model, self.embedder_dim)


@dataclass(frozen=True)
class DealCounts:
    facts: int
    current_facts: int
    superseded_facts: int
    entities: int
    episodes: int
    merges: int


def validate_group_id(group_id: str) -> str:
    if not isinstance(group_id, str) or not GROUP_ID_PATTERN.match(group_id):
        raise InvalidInput(f"Deal name {group_id!r} is not valid: use 1-64 letters, digits, '-' or '_'.")
    return group_id


async def register_deal(backend: GraphBackend, info: DealInfo) -> None:
    await backend.cypher.register_deal(info.group_id, {k: v for k, v in info.__dict__.items() if k != "group_id"})


async def get_deal(backend: GraphBackend, group_id: str) -> DealInfo | None:
    validate_group_id(group_id)
    if backend.kind == "falkordb" and group_id not in await backend.graph_names():
        return None  # never create a graph just by asking about it
    props = await backend.cypher.get_deal(group_id)
    if props is None:
        return None
    return DealInfo(**{name: props.get(name) for name in DealInfo.__dataclass_fields__})


async def list_deals(backend: GraphBackend, allowed: list[str] | None = None) -> list[DealInfo]:
    """Every registered deal (only those in `allowed`, when a deployment restricts them)."""
    if backend.kind == "falkordb":
        names = [n for n in await backend.graph_names() if GROUP_ID_PATTERN.match(n)]
    else:
        names = await backend.cypher.registered_deals()
    if allowed is not None:
        names = [n for n in names if n in allowed]
    deals = [await get_deal(backend, name) for name in sorted(names)]
    return [d for d in deals if d is not None]


async def require_deal(
    backend: GraphBackend, group_id: str, embedder: EmbedderInfo, allowed: list[str] | None = None
) -> DealInfo:
    """The deal, or a clear error: unknown (or not allowed here), or built with another embedder."""
    validate_group_id(group_id)
    deal = None if allowed is not None and group_id not in allowed else await get_deal(backend, group_id)
    if deal is None:
        known = ", ".join(d.group_id for d in await list_deals(backend, allowed)) or "none"
        raise UnknownDeal(f"No deal named {group_id!r} in the {backend.label}. Known deals: {known}.")
    if deal.embedder != embedder:
        raise EmbedderMismatch(
            f"Deal {group_id!r} was built with {deal.embedder.describe()}, but the configured embedder "
            f"is {embedder.describe()}. Set RETRIEVAL_LAB_EMBEDDER to match, or rebuild the deal."
        )
    return deal


async def deal_counts(backend: GraphBackend, group_id: str) -> DealCounts:
    return DealCounts(**await backend.cypher.deal_counts(group_id))
