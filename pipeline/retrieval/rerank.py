"""Reranking a pool of first-stage candidates: the one path `retrieve()` and the sweep share.

The reranker sees every candidate of the pool. A re-scorer that uses stored vectors gets the facts'
stored embeddings (search results carry none, so one indexed query loads them); if any is missing it embeds
the facts itself. Ties keep first-stage order.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge

from pipeline.graph.dialects.registry import for_driver
from pipeline.rerankers import LabReranker, RerankOutcome


async def stored_vectors(
    driver: GraphDriver, uuids: Sequence[str], edges: Sequence[EntityEdge] | None = None
) -> list[list[float]] | None:
    """The facts' stored embeddings in `uuids` order, or None when one is missing: one round trip, an index
    lookup per fact (graphiti's `get_embeddings_for_edges` scans every fact of the graph, and needs the edges
    read first when only uuids are at hand). `edges` is accepted for callers that have them; only uuids count."""
    stored = await for_driver(driver).fact_vectors(driver, list(dict.fromkeys(uuids)))
    if not all(u in stored for u in uuids):
        return None
    return [stored[u] for u in uuids]


async def score_pool(
    driver: GraphDriver,
    ranker: LabReranker,
    query: str,
    uuids: Sequence[str],
    facts: Sequence[str],
    edges: Sequence[EntityEdge] | None = None,
) -> RerankOutcome:
    """One score per fact, in pool order; raises RerankerFailed (the caller keeps first-stage order)."""
    vectors = await stored_vectors(driver, uuids, edges) if ranker.uses_vectors else None
    return await ranker.score(query, list(facts), vectors)


def rank_order(scores: Sequence[float]) -> list[int]:
    """Indices, best first; ties keep first-stage order."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def normalise(scores: Sequence[float]) -> list[float]:
    """Min-max to [0, 1]; all equal -> all 1."""
    low, high = min(scores), max(scores)
    return [1.0 if high == low else (s - low) / (high - low) for s in scores]
