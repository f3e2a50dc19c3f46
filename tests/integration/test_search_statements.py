"""Our BM25, cosine and stored-vector statements return what graphiti's own search utilities return."""

from __future__ import annotations

import pytest
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_utils import (
    edge_fulltext_search,
    edge_similarity_search,
    get_embeddings_for_edges,
)

from pipeline.graph.dialects.registry import for_driver
from pipeline.lab import Lab
from pipeline.retrieval.filters import temporal_filter
from pipeline.retrieval.rerank import stored_vectors
from pipeline.utc import parse_time

QUERIES = ("Halcyon revenue EBITDA", "Who is the CEO?", "customer churn contract renewal", "patent lawsuit")
FILTERS = (
    temporal_filter(False, None),
    temporal_filter(True, None),
    temporal_filter(False, parse_time("2024-09-30")),
)


def _fields(edges: list[EntityEdge]) -> list[tuple]:
    return [_dates(e) for e in edges] + [
        (e.uuid, e.source_node_uuid, e.target_node_uuid, e.group_id, e.name, e.fact, e.episodes) for e in edges
    ]


def _dates(e: EntityEdge) -> tuple:
    return (e.created_at, e.valid_at, e.invalid_at, e.expired_at, e.reference_time)


@pytest.mark.parametrize("search_filter", FILTERS, ids=["current", "everything", "as-of"])
async def test_same_hits_same_order_same_fields(lab: Lab, demo: str, search_filter) -> None:
    driver = lab.backend.driver(demo)
    dialect = for_driver(driver)
    for query in QUERIES:
        vector = await lab.embedder.embed_query(query)
        for limit in (5, 100):
            stock = await edge_fulltext_search(driver, query, search_filter, [demo], limit)
            ours = await dialect.edge_fulltext_search(driver, query, search_filter, [demo], limit)
            assert _fields(ours) == _fields(stock) and stock, (query, limit)
            stock = await edge_similarity_search(driver, vector, None, None, search_filter, [demo], limit, 0.0)
            hits = await dialect.edge_similarity_search(driver, vector, search_filter, [demo], limit, 0.0)
            ours = [edge for edge, _score in hits]
            assert _fields(ours) == _fields(stock) and len(stock) == limit, (query, limit)
            assert [score for _edge, score in hits] == sorted((score for _edge, score in hits), reverse=True)
            assert all(e.fact_embedding is None for e in ours)  # no embedding travelled back


async def test_stored_vectors_are_graphitis(lab: Lab, demo: str) -> None:
    driver = lab.backend.driver(demo)
    edges = await edge_similarity_search(
        driver, await lab.embedder.embed_query("revenue"), None, None, temporal_filter(True, None), [demo], 30, 0.0
    )
    uuids = [e.uuid for e in edges]
    stock = await get_embeddings_for_edges(driver, edges)
    ours = await stored_vectors(driver, uuids)
    assert ours is not None and len(ours) == 30
    assert ours == [list(stock[u]) for u in uuids]
    assert await stored_vectors(driver, [*uuids[:3], "no-such-fact"]) is None
