"""FalkorDB's dialect: what it spells differently from the openCypher in `common.py` (vectors are `vecf32`).

One graph per group_id: the deals operations look across graphs (listed by the backend) instead of in one
database, and never query a graph that does not exist (a query would create it).
"""

from __future__ import annotations

from typing import Any

from pipeline.graph.dialects.common import EDGE_FIELDS, SEARCH_FILTER, FactVectorIndex, GraphQueries
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
        ORDER BY score DESC
        LIMIT $limit
        """
    FACTS_BY_VECTOR = f"""
        MATCH (n:Entity)-[e:RELATES_TO]->(m:Entity)
        WHERE {SEARCH_FILTER}
        WITH DISTINCT e, n, m, (2 - vec.cosineDistance(e.fact_embedding, vecf32($search_vector)))/2 AS score
        WHERE score > $min_score
        RETURN {EDGE_FIELDS}, score
        ORDER BY score DESC
        LIMIT $limit
        """

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
