"""graphiti's BFS edge search on FalkorDB, same edges in the same order, without enumerating paths.

graphiti's statement walks every path of up to `depth` hops from every origin (pipeline/retrieval/walk_order.py
says how FalkorDB orders them); on a hub or a cycle that is exponential. Here the adjacency of the nodes within
`depth - 1` hops of the origins is read one hop at a time (one round trip per hop, one row per node: only ids and
whether each fact passes the search filter), the statement's order is replayed in Python over just those facts,
and the facts kept are read in one last round trip, with graphiti's fields but without `properties(e)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_filters import SearchFilters

from pipeline.graph.dialects.common import with_filter
from pipeline.graph.dialects.falkordb_walk import FalkorWalk
from pipeline.retrieval.search import edges_from, filter_condition, rows
from pipeline.retrieval.walk_order import first_reached, walk_order


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

    def add(found: list[dict[str, Any]]) -> None:
        for row in found:
            node = row["src"]
            adjacency.setdefault(node, []).extend(zip(row["edges"], row["targets"], strict=True))
            source.update(dict.fromkeys(row["edges"], node))
            kept.update(zip(row["edges"], map(bool, row["keep"]), strict=True))

    first = await rows(driver, with_filter(FalkorWalk.OUT_FROM_UUIDS, condition), uuids=origins, **params)
    starts: dict[str, int] = {}
    for row in first:
        starts.setdefault(row["origin"], row["src"])
    add(first)
    frontier = set(adjacency)
    for _ in range(depth - 1):  # nodes `depth` hops out are reached but never expanded
        frontier = {dst for node in frontier for _, dst in adjacency.get(node, ())} - adjacency.keys()
        if not frontier:
            break
        for node in frontier:
            adjacency[node] = []
        add(await rows(driver, with_filter(FalkorWalk.OUT_FROM_IDS, condition), ids=sorted(frontier), **params))
    order = walk_order([starts[u] for u in origins if u in starts], adjacency, depth)
    found = first_reached(order, kept.__getitem__, limit)
    if not found:
        return []
    wanted: dict[int, list[int]] = {}
    for edge in found:
        wanted.setdefault(source[edge], []).append(edge)
    records = await rows(driver, FalkorWalk.FACTS_BY_ID, groups=[[node, edges] for node, edges in wanted.items()])
    by_edge = {r.pop("edge"): r for r in records}
    return edges_from([by_edge[e] for e in found if e in by_edge], driver)  # a fact deleted meanwhile is left out
