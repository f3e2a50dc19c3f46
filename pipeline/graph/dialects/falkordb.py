"""FalkorDB's dialect: what it spells differently from the openCypher in `common.py` (vectors are `vecf32`).

Graphs, not one database: a graph per group_id (what graphiti's `add_episode` writes for a given group_id), or
several groups in one graph (graphiti's default group `_` in `default_db`, older graphiti versions, other
deployments). The deals operations look into every graph, record which graph holds each group on the backend
(`GraphBackend.graphs`, read by `driver(group_id)`), and never query a graph that does not exist (a query would
create it). Every statement reading or writing a deal filters by its group_id, so a shared graph is safe.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_filters import SearchFilters

from pipeline.graph.dialects.common import FactVectorIndex, GraphQueries
from pipeline.graph.dialects.falkordb_walk import walk_bfs_search
from pipeline.graph.dialects.search import EDGE_FIELDS, SEARCH_FILTER
from pipeline.graph.group_id import GROUP_ID_PATTERN

# graphiti's FalkorDriver database when none is given: where its default group `_` lives
GRAPHITI_DEFAULT_GRAPH = "default_db"


class FalkorGraphs:
    """The statements FalkorDB's dialect runs on a graph by its name, whatever groups it holds: discovery looks into
    every graph (a graph per group, or several groups in one graph), and deleting a deal asks whether its graph holds
    anything else. Neo4j keeps every group in one database and needs none of them."""

    # label scans, each answered from graphiti's label index; a group is a deal by its Entity or Episodic nodes
    ENTITY_GROUPS = "MATCH (n:Entity) RETURN DISTINCT n.group_id AS g"
    EPISODE_GROUPS = "MATCH (n:Episodic) RETURN DISTINCT n.group_id AS g"
    # any node that is not the group's: then deleting the group may not delete its graph
    OTHER_NODE = "MATCH (n) WHERE n.group_id IS NULL OR n.group_id <> $g RETURN 1 AS x LIMIT 1"


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

    @classmethod
    def fulltext_groups(cls, group_ids: list[str] | None) -> list[str] | None:
        """graphiti's RediSearch group filter (`@group_id:"3f1c9a52\\-acme"`) matches nothing when a group id holds
        a character RediSearch splits words on (a UUID's hyphen: the indexed value is split there, the escaped
        filter is not). For such an id the text query goes without it; the group stays filtered in the statement
        (`e.group_id IN $group_ids`), which sees every hit before its LIMIT, so a graph shared with other groups
        gives the same facts. Any other id keeps graphiti's query exactly."""
        if group_ids is None or all(ch.isalnum() or ch == "_" for g in group_ids for ch in g):
            return group_ids
        return None

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

    # one index per graph (a graph may hold other groups: the index's k nearest are filtered to the group, and
    # `answered` says how many it gave); the procedure yields cosine distance, graphiti scores (2 - d) / 2
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
        WITH collect({{e: relationship, score: score}}) AS hits
        UNWIND hits AS hit
        WITH hit.e AS e, hit.score AS score, size(hits) AS answered
        WHERE e.group_id = $g
        RETURN {EDGE_FIELDS}, (2 - score) / 2 AS score, answered
        """

    # --- deals: every group in every graph -----------------------------------------------------------
    async def graph_groups(self, graph: str) -> set[str]:
        """The valid group ids holding graphiti nodes in one existing graph."""
        found: set[str] = set()
        for statement in (FalkorGraphs.ENTITY_GROUPS, FalkorGraphs.EPISODE_GROUPS):
            for row in await self._backend.read_graph(graph, statement):
                if isinstance(row["g"], str) and GROUP_ID_PATTERN.fullmatch(row["g"]):
                    found.add(row["g"])
        return found

    async def locate_groups(self) -> dict[str, str]:
        """group_id -> the graph holding it, for every group in every graph; recorded on the backend. A group found
        in several graphs is read from its own graph, else graphiti's default graph, else the first by name."""
        holders: dict[str, list[str]] = {}
        for graph in sorted(await self._backend.graph_names()):
            for group in await self.graph_groups(graph):
                holders.setdefault(group, []).append(graph)
        self._backend.graphs = {group: _preferred(group, graphs) for group, graphs in holders.items()}
        return self._backend.graphs

    async def group_ids(self) -> list[str]:
        return sorted(await self.locate_groups())

    async def holds_group(self, group_id: str) -> bool:
        """Its own graph or the graph it was last found in is asked first (two indexed lookups); only a group
        in neither makes it look into every graph."""
        graphs = await self._backend.graph_names()
        for graph in dict.fromkeys((group_id, self._backend.graphs.get(group_id, group_id))):
            if graph in graphs and await self._graph_holds(graph, group_id):
                self._backend.graphs[group_id] = graph
                return True
        return group_id in await self.locate_groups()

    async def _graph_holds(self, graph: str, group_id: str) -> bool:
        for statement in (self.ANY_ENTITY, self.ANY_EPISODE):
            if await self._backend.read_graph(graph, statement, g=group_id):
                return True
        return False

    async def holds_other_nodes(self, graph: str, group_id: str) -> bool:
        """Whether an existing graph holds any node that is not the group's (another group's, or no group's)."""
        return bool(await self._backend.read_graph(graph, FalkorGraphs.OTHER_NODE, g=group_id))

    async def create_fact_vector_index(self, group_id: str, dimension: int) -> None:
        """The index is the graph's: in a graph shared with a deal attached read-only it would index that deal's
        facts too, so it is refused there (one line) before anything is written."""
        graph = self._backend.graph_of(group_id)
        if graph in await self._backend.graph_names():
            for other in sorted(await self.graph_groups(graph) - {group_id}):
                self._backend.require_writable(other, f"a vector index on graph {graph!r}, which {group_id!r} shares")
        await super().create_fact_vector_index(group_id, dimension)

    async def fact_vector_index(self, group_id: str) -> FactVectorIndex | None:
        if self._backend.graph_of(group_id) not in await self._backend.graph_names():
            return None  # asking a graph that does not exist would create it
        for row in await self._rows(group_id, self.FACT_VECTOR_INDEX):
            if "VECTOR" in (row["types"] or {}).get("fact_embedding", []):
                status = str(row["status"])
                return FactVectorIndex(ready=status == "OPERATIONAL", progress=status)
        return None

    async def legacy_deals(self) -> dict[str, dict[str, Any]]:
        """Earlier versions wrote a group's `RetrievalLabDeal` node into the group's own graph only."""
        found: dict[str, dict[str, Any]] = {}
        for graph in await self._backend.graph_names():
            if GROUP_ID_PATTERN.fullmatch(graph):
                for row in await self._backend.read_graph(graph, self.LEGACY_DEALS):
                    if row["g"] == graph:
                        found[graph] = row["props"]
        return found


def _preferred(group_id: str, graphs: Iterable[str]) -> str:
    """Where a group found in several graphs is read: its own graph (where graphiti writes a group_id it is
    given), else graphiti's default graph (its group `_`), else the first by name."""
    graphs = sorted(graphs)
    for graph in (group_id, GRAPHITI_DEFAULT_GRAPH):
        if graph in graphs:
            return graph
    return graphs[0]
