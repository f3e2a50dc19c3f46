"""Reads over one deal's graphiti driver, shared by every dialect's searches: run a statement, turn its rows into
graphiti's `EntityEdge`s, and build graphiti's search filter as one condition."""

from __future__ import annotations

from typing import Any

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge, get_entity_edge_from_record
from graphiti_core.search.search_filters import SearchFilters, edge_search_filter_query_constructor


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
    """graphiti's edges from rows of its edge fields (`attributes` left empty: nothing here reads them)."""
    return [get_entity_edge_from_record({**r, "attributes": {}}, driver.provider) for r in records]
