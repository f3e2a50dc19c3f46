"""graphiti's cosine method, answered by the graph's vector index instead of a scan of every fact."""

from __future__ import annotations

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_filters import SearchFilters

from pipeline.graph.backend import GraphBackend
from pipeline.graph.dialects.reads import edges_from
from pipeline.retrieval.filters import passes

OVERSAMPLE = 4  # the index knows no filters: superseded facts (~40% of a deal) are dropped after it answers
MAX_K = 10_000


async def indexed_similarity_search(
    backend: GraphBackend,
    driver: GraphDriver,
    group_id: str,
    vector: list[float],
    search_filter: SearchFilters,
    limit: int,
) -> list[EntityEdge]:
    """The `limit` facts nearest the query that pass the filter, nearest first, as graphiti `EntityEdge`s
    (built by graphiti from the index's rows, in one round trip). Asks the index for more while too few of its
    hits pass and it has more to give (in a graph or database shared with other groups, the index answers for them
    all)."""
    k = OVERSAMPLE * limit
    while True:
        hits, answered = await backend.cypher.query_fact_vector_index(group_id, vector, k)
        kept = [edge for edge in edges_from(hits, driver) if passes(edge, search_filter)]
        exhausted = answered is not None and answered < k  # counted before other groups' facts were left out
        if len(kept) >= limit or exhausted or k >= MAX_K:
            return kept[:limit]
        k = min(MAX_K, k * OVERSAMPLE)
