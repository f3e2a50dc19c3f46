"""FalkorDB's dialect: what it spells differently from the openCypher in `common.py` (vectors are `vecf32`).

One graph per group_id: the deals operations look across graphs (listed by the backend) instead of in one
database, and never query a graph that does not exist (a query would create it).
"""

from __future__ import annotations

from typing import Any

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_filters import SearchFilters

from pipeline.graph.dialects.common import EDGE_FIELDS, SEARCH_FILTER, FactVectorIndex, GraphQueries
from pipeline.graph.dialects.falkordb_walk import walk_bfs_search
from pipeline.graph.group_id import GROUP_ID_PATTERN


class FalkorQueries(GraphQueries):
    # graphiti's FalkorDB spelling: RediSearch's index on RELATES_TO, endpoints read from the relationship itself
    FACTS_BY_TEXT = f"""
        CALL db.idx.fulltext.queryRelationships('RELATES_TO', $query)
        YIELD relationship AS rel, score
        WITH rel AS e, score, startNode(rel) AS n, endNode(rel) AS m
        WHERE n:Entity AND m:Entity
        WITH e, score, n, m
        WHERE {SEARCH_FILTER}
        WITH e, score, n, m
        RETURN {EDGE_FIELDS}
        ORDER BY score DESC, e.uuid
        LIMIT $limit
        """
    FACTS_BY_VECTOR = f"""
        MATCH (n:Entity)-[e:RELATES_TO]->(m:Entity)
        WHERE {SEARCH_FILTER}
        WITH DISTINCT e, n, m, (2 - vec.cosineDistance(e.fact_embedding, vecf32($search_vector)))/2 AS score
        WHERE score > $min_score
        RETURN {EDGE_FIELDS}, score
        ORDER BY score DESC, e.uuid
        LIMIT $limit
        """

    @classmethod
    async def edge_fulltext_search(
        cls, driver: GraphDriver, query: str, search_filter: SearchFilters, group_ids: list[str] | None, limit: int
    ) -> list[EntityEdge]:
        """graphiti's RediSearch group filter (`@group_id:"3f1c9a52\\-acme"`) matches nothing when a group id holds
        a character RediSearch splits words on (a UUID's hyphen: the indexed value is split there, the escaped
        filter is not). The group is the graph itself, so for such an id the filter is left out and the group
        checked on the results; any other id keeps graphiti's query exactly."""
        if group_ids is None or all(ch.isalnum() or ch == "_" for g in group_ids for ch in g):
            return await super().edge_fulltext_search(driver, query, search_filter, group_ids, limit)
        edges = await super().edge_fulltext_search(driver, query, search_filter, None, limit)
        return [edge for edge in edges if edge.group_id in group_ids]

    @classmethod
    async def edge_bfs_search(
        cls,
        driver: GraphDriver,
        origins: list[str],
        max_depth: int,
        search_filter: SearchFilters,
        group_ids: list[str] | None,
        limit: int,
    ) -> list[EntityEdge]:
        """graphiti's list, walked without enumerating every path (falkordb_walk.py)."""
        return await walk_bfs_search(driver, origins, max_depth, search_filter, group_ids, limit)

    # one graph per deal, so one index per deal; the procedure yields cosine distance, graphiti scores (2 - d) / 2
    CREATE_FACT_VECTOR_INDEX = """
        CREATE VECTOR INDEX FOR ()-[e:RELATES_TO]-() ON (e.fact_embedding)
        OPTIONS {dimension: $dimension, similarityFunction: 'cosine'}
        """
    FACT_VECTOR_INDEX = """
        CALL db.indexes() YIELD label, types, entitytype, status
        WITH label, types, entitytype, status WHERE label = 'RELATES_TO' AND entitytype = 'RELATIONSHIP'
        RETURN types, status
        """
    QUERY_FACT_VECTOR_INDEX = f"""
        CALL db.idx.vector.queryRelationships('RELATES_TO', 'fact_embedding', $k, vecf32($v))
        YIELD relationship, score
        WITH relationship AS e, score WHERE e.group_id = $g
        RETURN {EDGE_FIELDS}, (2 - score) / 2 AS score
        """

    async def fact_vector_index(self, group_id: str) -> FactVectorIndex | None:
        if group_id not in await self._backend.graph_names():
            return None  # asking a graph that does not exist would create it
        for row in await self._rows(group_id, self.FACT_VECTOR_INDEX):
            if "VECTOR" in (row["types"] or {}).get("fact_embedding", []):
                status = str(row["status"])
                return FactVectorIndex(ready=status == "OPERATIONAL", progress=status)
        return None

    async def _graphs(self) -> list[str]:
        return sorted(n for n in await self._backend.graph_names() if GROUP_ID_PATTERN.fullmatch(n))

    async def group_ids(self) -> list[str]:
        return [g for g in await self._graphs() if await GraphQueries.holds_group(self, g)]

    async def holds_group(self, group_id: str) -> bool:
        return group_id in await self._backend.graph_names() and await super().holds_group(group_id)

    async def legacy_deals(self) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for graph in await self._graphs():
            for row in await self._rows(graph, self.LEGACY_DEALS):
                if row["g"] == graph:
                    found[graph] = row["props"]
        return found
