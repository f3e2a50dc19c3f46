"""The first stage's graph walk on FalkorDB: graphiti's BFS edge search, same edges in the same order, without
enumerating paths. FalkorDB's dialect runs it for graphiti's `edge_bfs_search`.

graphiti's statement walks every path of up to `depth` hops from every origin (walk_order.py
says how FalkorDB orders them); on a hub or a cycle that is exponential. Here the adjacency of the nodes within
`depth - 1` hops of the origins is read one hop at a time (one round trip per hop, one row per node: only ids and
whether each fact passes the search filter), the statement's order is replayed in Python over just those facts,
and the facts kept are read in one last round trip, with graphiti's fields but without `properties(e)`.

The walk replays the order of FalkorDB's own variable-length traversal, which it reads through internal ids
(`id()`), so these statements exist for FalkorDB only; on Neo4j the first stage runs graphiti's BFS statement.
`FILTER` stands for graphiti's search filter over `e`, `n` and `m` (its `edge_search_filter_query_constructor`),
substituted by `common.with_filter`; it is evaluated on every edge read, as graphiti's statement does on every edge
of a path, and only decides what is returned, never where the walk goes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_filters import SearchFilters

from pipeline.graph.dialects.reads import edges_from, filter_condition, rows
from pipeline.graph.dialects.search import SEARCH_FILTER as FILTER
from pipeline.graph.dialects.search import with_filter
from pipeline.graph.dialects.walk_order import first_reached, walk_order


class FalkorWalk:
    # each node's outgoing facts as one row of parallel lists: thousands of facts out of a hub arrive about eight
    # times faster than as one row each. graphiti's statement matches `(origin {uuid: ...})` with no label, but
    # every origin is the source of a fact, so an Entity, and the label lets FalkorDB use its uuid index.
    OUT_FROM_UUIDS = f"""
        UNWIND $uuids AS u
        MATCH (n:Entity {{uuid: u}})-[e:RELATES_TO]->(m)
        RETURN u AS origin, id(n) AS src, collect(id(e)) AS edges, collect(id(m)) AS targets,
               collect(coalesce({FILTER}, false)) AS keep
        """
    OUT_FROM_IDS = f"""
        UNWIND $ids AS i
        MATCH (n) WHERE id(n) = i
        MATCH (n)-[e:RELATES_TO]->(m)
        RETURN id(n) AS src, collect(id(e)) AS edges, collect(id(m)) AS targets,
               collect(coalesce({FILTER}, false)) AS keep
        """
    # the facts the walk kept, grouped by source: [source id, [edge ids]]; graphiti's fields without
    # `properties(e)`. FalkorDB has no seek by edge id, so each source's facts are read once and picked by id
    # (names bound first, else `id(n) = g[0]` scans every node instead of seeking it).
    FACTS_BY_ID = """
        UNWIND $groups AS g
        WITH g[0] AS source, g[1] AS wanted
        MATCH (n) WHERE id(n) = source
        MATCH (n)-[e:RELATES_TO]->(m) WHERE id(e) IN wanted
        RETURN id(e) AS edge, e.uuid AS uuid, n.uuid AS source_node_uuid, m.uuid AS target_node_uuid,
               e.group_id AS group_id, e.created_at AS created_at, e.name AS name, e.fact AS fact,
               e.episodes AS episodes, e.expired_at AS expired_at, e.valid_at AS valid_at,
               e.invalid_at AS invalid_at, e.reference_time AS reference_time
        """


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
