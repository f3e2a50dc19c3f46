"""graphiti's BFS edge search on FalkorDB, same edges in the same order, without enumerating paths.

graphiti's statement walks every path of up to `depth` hops from every origin (pipeline/retrieval/walk_order.py
says how FalkorDB orders them); on a hub or a cycle that is exponential. Here the adjacency of the nodes within
`depth - 1` hops of the origins is read one hop at a time (one round trip per hop, only ids and whether each fact
passes the search filter), the walk's order is replayed in Python with each node expanded about once, and the
facts kept are read in one last round trip, with graphiti's fields but without `properties(e)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge, get_entity_edge_from_record
from graphiti_core.search.search_filters import SearchFilters, edge_search_filter_query_constructor

from pipeline.graph.dialects.falkordb_walk import FalkorWalk, with_filter
from pipeline.retrieval.walk_order import first_reached, walk_order


def filter_condition(
    driver: GraphDriver, search_filter: SearchFilters, group_ids: list[str] | None
) -> tuple[str, dict[str, Any]]:
    """graphiti's own filter over `e`, `n`, `m` as one condition, with its parameters (as its BFS builds it)."""
    conditions, params = edge_search_filter_query_constructor(search_filter, driver.provider)
    if group_ids is not None:
        conditions.append("e.group_id IN $group_ids")
        params["group_ids"] = group_ids
    return " AND ".join(conditions), params


async def _rows(driver: GraphDriver, statement: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = await driver.execute_query(statement, routing_="r", **params)
    return [dict(r) for r in records]


async def walk_bfs_search(
    driver: GraphDriver,
    origins: Sequence[str],
    depth: int,
    search_filter: SearchFilters,
    group_ids: list[str] | None,
    limit: int,
) -> list[EntityEdge]:
    """What graphiti's `edge_bfs_search(driver, origins, depth, search_filter, group_ids, limit)` returns on
    FalkorDB, in its order (origins are walked in turn; a repeated origin adds nothing)."""
    origins = list(dict.fromkeys(origins))
    if not origins or limit <= 0 or depth <= 0:
        return []
    condition, params = filter_condition(driver, search_filter, group_ids)
    adjacency: dict[int, list[tuple[int, int]]] = {}
    source: dict[int, int] = {}
    kept: dict[int, bool] = {}

    def add(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            adjacency.setdefault(row["src"], []).append((row["edge"], row["dst"]))
            source[row["edge"]] = row["src"]
            kept[row["edge"]] = bool(row["keep"])

    rows = await _rows(driver, with_filter(FalkorWalk.OUT_FROM_UUIDS, condition), uuids=origins, **params)
    starts: dict[str, int] = {}
    for row in rows:
        starts.setdefault(row["origin"], row["src"])
    add(rows)
    frontier = set(adjacency)
    for _ in range(depth - 1):  # nodes `depth` hops out are reached but never expanded
        frontier = {dst for node in frontier for _, dst in adjacency.get(node, ())} - adjacency.keys()
        if not frontier:
            break
        for node in frontier:
            adjacency[node] = []
        add(await _rows(driver, with_filter(FalkorWalk.OUT_FROM_IDS, condition), ids=sorted(frontier), **params))
    order = walk_order([starts[u] for u in origins if u in starts], adjacency, depth)
    found = first_reached(order, kept.__getitem__, limit)
    if not found:
        return []
    records = await _rows(driver, FalkorWalk.FACTS_BY_ID, pairs=[[source[e], e] for e in found])
    by_edge = {r.pop("edge"): r for r in records}
    return [get_entity_edge_from_record({**by_edge[e], "attributes": {}}, driver.provider) for e in found]
