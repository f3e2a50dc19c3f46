"""graphiti's BM25 and cosine edge searches, returning graphiti's `EntityEdge`s without `properties(e)`.

graphiti's `edge_fulltext_search` / `edge_similarity_search` return every hit's full property map, its embedding
included, which travels back and is parsed for nothing. These run graphiti's statements (the dialect's
`FACTS_BY_TEXT` / `FACTS_BY_VECTOR`: same MATCH, filter and order, built from graphiti's own query builders)
with only the fields an `EntityEdge` is made of, and build the edges with graphiti's `get_entity_edge_from_record`
(`attributes` left empty: nothing here reads them). The hits are the same, in the same order (a test checks it).
"""

from __future__ import annotations

from typing import Any

from graphiti_core.driver.driver import GraphDriver, GraphProvider
from graphiti_core.edges import EntityEdge, get_entity_edge_from_record
from graphiti_core.search.search_filters import SearchFilters, edge_search_filter_query_constructor
from graphiti_core.search.search_utils import fulltext_query

from pipeline.graph.dialects import DIALECTS
from pipeline.graph.dialects.common import GraphQueries, with_filter


def dialect(driver: GraphDriver) -> type[GraphQueries]:
    return DIALECTS["falkordb" if driver.provider == GraphProvider.FALKORDB else "neo4j"]


def filter_condition(
    driver: GraphDriver, search_filter: SearchFilters, group_ids: list[str] | None
) -> tuple[str, dict[str, Any]]:
    """graphiti's filter conditions over `e`, `n`, `m` as one condition with its parameters, as its searches
    build them (the group condition last)."""
    conditions, params = edge_search_filter_query_constructor(search_filter, driver.provider)
    if group_ids is not None:
        conditions.append("e.group_id IN $group_ids")
        params["group_ids"] = group_ids
    return " AND ".join(conditions), params


async def rows(driver: GraphDriver, statement: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = await driver.execute_query(statement, routing_="r", **params)
    return [dict(r) for r in records]


def edges_from(records: list[dict[str, Any]], driver: GraphDriver) -> list[EntityEdge]:
    return [get_entity_edge_from_record({**r, "attributes": {}}, driver.provider) for r in records]


async def text_search(
    driver: GraphDriver, query: str, search_filter: SearchFilters, group_ids: list[str] | None, limit: int
) -> list[EntityEdge]:
    """graphiti's `edge_fulltext_search(driver, query, search_filter, group_ids, limit)`."""
    text = fulltext_query(query, group_ids, driver)
    if text == "":
        return []
    condition, params = filter_condition(driver, search_filter, group_ids)
    statement = with_filter(dialect(driver).FACTS_BY_TEXT, condition)
    return edges_from(await rows(driver, statement, query=text, limit=limit, **params), driver)


async def vector_search(
    driver: GraphDriver,
    vector: list[float],
    search_filter: SearchFilters,
    group_ids: list[str] | None,
    limit: int,
    min_score: float,
) -> list[tuple[EntityEdge, float]]:
    """graphiti's `edge_similarity_search(driver, vector, None, None, search_filter, group_ids, limit, min_score)`,
    each hit with its cosine score."""
    condition, params = filter_condition(driver, search_filter, group_ids)
    statement = with_filter(dialect(driver).FACTS_BY_VECTOR, condition)
    found = await rows(driver, statement, search_vector=vector, limit=limit, min_score=min_score, **params)
    return list(zip(edges_from(found, driver), (float(r["score"]) for r in found), strict=True))


async def fact_vectors(driver: GraphDriver, uuids: list[str]) -> dict[str, list[float]]:
    """The stored embeddings of these facts, by uuid (missing ones left out): one indexed lookup each."""
    found = await rows(driver, dialect(driver).FACT_VECTORS, uuids=uuids)
    return {r["uuid"]: list(r["vector"]) for r in found if r["vector"] is not None}
