"""Our BM25, cosine and stored-vector statements return what graphiti's own search utilities return, and in its
order except among equal scores: graphiti returns those in index order, which a write to a fact changes (a
correction and its undo); ours come in fact uuid order, so a ranking is the same whenever the scores are."""

from __future__ import annotations

import pytest
from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_utils import (
    edge_fulltext_search,
    edge_similarity_search,
    fulltext_query,
    get_embeddings_for_edges,
)

from pipeline.graph.dialects import for_driver
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


def _tie_order(edges: list[EntityEdge], scores: dict[str, float]) -> list[EntityEdge]:
    """graphiti's order (by score), equal scores by uuid: the order ours must have."""
    return sorted(edges, key=lambda e: (-scores[e.uuid], e.uuid))


async def _text_scores(driver: GraphDriver, query: str, group_id: str) -> dict[str, float]:
    """Every fact's full-text score for `query`, read from FalkorDB's index itself."""
    statement = "CALL db.idx.fulltext.queryRelationships('RELATES_TO', $q) YIELD relationship, score"
    found, _, _ = await driver.execute_query(f"{statement} RETURN relationship.uuid AS uuid, score", q=query)
    assert found, query
    return {r["uuid"]: float(r["score"]) for r in found}


def _dates(e: EntityEdge) -> tuple:
    return (e.created_at, e.valid_at, e.invalid_at, e.expired_at, e.reference_time)


@pytest.mark.parametrize("search_filter", FILTERS, ids=["current", "everything", "as-of"])
async def test_same_hits_same_order_same_fields(lab: Lab, demo: str, search_filter) -> None:
    driver = lab.backend.driver(demo)
    dialect = for_driver(driver)
    for query in QUERIES:
        vector = await lab.embedder.embed_query(query)
        text_scores = await _text_scores(driver, fulltext_query(query, [demo], driver), demo)
        everything = await edge_fulltext_search(driver, query, search_filter, [demo], 1000)
        for limit in (5, 100):
            expected = _tie_order(everything, text_scores)[:limit]
            ours = await dialect.edge_fulltext_search(driver, query, search_filter, [demo], limit)
            assert _fields(ours) == _fields(expected) and expected, (query, limit)
            stock = await edge_similarity_search(driver, vector, None, None, search_filter, [demo], limit, 0.0)
            hits = await dialect.edge_similarity_search(driver, vector, search_filter, [demo], limit, 0.0)
            ours = [edge for edge, _score in hits]
            assert _fields(ours) == _fields(_tie_order(stock, {e.uuid: s for e, s in hits})), (query, limit)
            assert len(stock) == limit
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
