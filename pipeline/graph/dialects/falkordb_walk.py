"""FalkorDB-only statements of the first stage's graph walk (pipeline/retrieval/graph_walk.py).

The walk replays the order of FalkorDB's own variable-length traversal, which it reads through internal ids
(`id()`), so these statements exist for FalkorDB only; on Neo4j the first stage runs graphiti's BFS statement.
`FILTER` stands for graphiti's search filter over `e`, `n` and `m` (its `edge_search_filter_query_constructor`),
substituted by `common.with_filter`; it is evaluated on every edge read, as graphiti's statement does on every edge
of a path, and only decides what is returned, never where the walk goes.
"""

from __future__ import annotations

from pipeline.graph.dialects.common import SEARCH_FILTER as FILTER


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
