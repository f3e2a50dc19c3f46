"""The first stage's searches in openCypher: graphiti's edge searches (its `SearchInterface`,
graphiti_core/search/search_utils.py) over one deal's graphiti driver, as class methods, and the statement
fragments the dialects' search statements share.

BM25 and cosine run graphiti's statements with the same MATCH, filter and order, returning graphiti's edge fields
but not `properties(e)`: that map holds the fact's embedding, which would travel back and be parsed for every hit
(about half the cosine search's time). The hits are the same, in the same order
(tests/integration/test_search_statements.py). The walk is graphiti's own statement unless a dialect has a better
one (FalkorDB's: `falkordb_walk.py`).
"""

from __future__ import annotations

import numpy as np
from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.search.search_utils import edge_bfs_search, fulltext_query

from pipeline.graph.dialects.reads import edges_from, filter_condition, rows

# graphiti's filter conditions over `e`, `n`, `m` go where this stands (`reads.filter_condition`)
SEARCH_FILTER = "/* search filter */ true"


def with_filter(statement: str, condition: str) -> str:
    """`statement` with graphiti's filter conditions (one parenthesised condition; empty: no filter)."""
    return statement.replace(SEARCH_FILTER, f"({condition})" if condition else "true")


# graphiti's edge fields (get_entity_edge_return_query) without `properties(e)`
EDGE_FIELDS = """
    e.uuid AS uuid, startNode(e).uuid AS source_node_uuid, endNode(e).uuid AS target_node_uuid,
    e.group_id AS group_id, e.created_at AS created_at, e.name AS name, e.fact AS fact,
    e.episodes AS episodes, e.expired_at AS expired_at, e.valid_at AS valid_at, e.invalid_at AS invalid_at,
    e.reference_time AS reference_time
    """


class SearchQueries:
    """graphiti's edge searches, as class methods over a driver (no backend: retrieval holds one deal's driver)."""

    @classmethod
    async def edge_fulltext_search(
        cls, driver: GraphDriver, query: str, search_filter: SearchFilters, group_ids: list[str] | None, limit: int
    ) -> list[EntityEdge]:
        """graphiti's `edge_fulltext_search(driver, query, search_filter, group_ids, limit)`."""
        text = fulltext_query(query, cls.fulltext_groups(group_ids), driver)
        if text == "":
            return []
        condition, params = filter_condition(driver, search_filter, group_ids)
        statement = with_filter(cls.FACTS_BY_TEXT, condition)
        return edges_from(await rows(driver, statement, query=text, limit=limit, **params), driver)

    @classmethod
    def fulltext_groups(cls, group_ids: list[str] | None) -> list[str] | None:
        """The groups graphiti's full-text query itself filters on (the statement filters them too)."""
        return group_ids

    @classmethod
    async def edge_similarity_search(
        cls,
        driver: GraphDriver,
        vector: list[float],
        search_filter: SearchFilters,
        group_ids: list[str] | None,
        limit: int,
        min_score: float,
    ) -> list[tuple[EntityEdge, float]]:
        """graphiti's `edge_similarity_search(driver, vector, None, None, search_filter, group_ids, limit,
        min_score)`, each hit with its cosine score."""
        condition, params = filter_condition(driver, search_filter, group_ids)
        statement = with_filter(cls.FACTS_BY_VECTOR, condition)
        found = await rows(driver, statement, search_vector=vector, limit=limit, min_score=min_score, **params)
        return list(zip(edges_from(found, driver), (float(r["score"]) for r in found), strict=True))

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
        """graphiti's BFS edge search: its own statement."""
        return await edge_bfs_search(driver, origins, max_depth, search_filter, group_ids, limit)

    @classmethod
    async def fact_vectors(cls, driver: GraphDriver, uuids: list[str]) -> dict[str, list[float]]:
        """The stored embeddings of these facts, by uuid (missing ones left out): one indexed lookup each."""
        found = await rows(driver, cls.FACT_VECTORS, uuids=uuids)
        return {r["uuid"]: list(r["vector"]) for r in found if r["vector"] is not None}

    @classmethod
    async def fact_uuids(cls, driver: GraphDriver, group_id: str) -> list[str]:
        """Every fact of the deal, by uuid (the first read of holding its facts: `held_facts.py`)."""
        return [r["uuid"] for r in await rows(driver, cls.FACT_UUIDS, g=group_id)]

    @classmethod
    async def held_facts(cls, driver: GraphDriver, uuids: list[str]) -> list[tuple[EntityEdge, list[float] | None]]:
        """These facts with their stored vectors (a fact gone since its uuid was read is left out)."""
        found = await rows(driver, cls.HELD_FACTS, uuids=uuids)
        return list(zip(edges_from(found, driver), (r["vector"] for r in found), strict=True))

    @classmethod
    async def facts_stamp(cls, driver: GraphDriver, group_id: str) -> tuple[object, ...]:
        """What changes when graphiti writes the deal's facts: their count, the latest write, retirement and
        invalidation, and how many episodes cite them (graphiti appends a re-stated fact's episode in place)."""
        (found,) = await rows(driver, cls.FACTS_STAMP, g=group_id)
        return tuple(found.values())

    @staticmethod
    def similarity(cosine: np.ndarray) -> np.ndarray:
        """graphiti's cosine score from the plain cosine: FalkorDB's (2 - cosine distance) / 2 and Neo4j's
        `vector.similarity.cosine`, both (1 + cosine) / 2."""
        return (1.0 + cosine) / 2.0

    FACTS_BY_TEXT = f"""
        CALL db.index.fulltext.queryRelationships("edge_name_and_fact", $query, {{limit: $limit}})
        YIELD relationship AS rel, score
        MATCH (n:Entity)-[e:RELATES_TO {{uuid: rel.uuid}}]->(m:Entity)
        WHERE {SEARCH_FILTER}
        WITH e, score, n, m
        RETURN {EDGE_FIELDS}
        ORDER BY score DESC
        LIMIT $limit
        """
    FACTS_BY_VECTOR = f"""
        MATCH (n:Entity)-[e:RELATES_TO]->(m:Entity)
        WHERE {SEARCH_FILTER}
        WITH DISTINCT e, n, m, vector.similarity.cosine(e.fact_embedding, $search_vector) AS score
        WHERE score > $min_score
        RETURN {EDGE_FIELDS}, score
        ORDER BY score DESC
        LIMIT $limit
        """
    FACT_UUIDS = "MATCH ()-[e:RELATES_TO]->() WHERE e.group_id = $g RETURN e.uuid AS uuid"
    # an index lookup each; graphiti writes RELATES_TO between entities only, and asking for the labels here would
    # make FalkorDB scan every fact for each uuid
    HELD_FACTS = f"""
        UNWIND $uuids AS u
        MATCH ()-[e:RELATES_TO {{uuid: u}}]->()
        RETURN {EDGE_FIELDS}, e.fact_embedding AS vector
        """
    # no labels on the endpoints: a label test on both ends of every fact is most of the cost of a fact scan
    FACTS_STAMP = """
        MATCH ()-[e:RELATES_TO]->() WHERE e.group_id = $g
        RETURN count(e) AS facts, max(e.created_at) AS created, max(e.expired_at) AS expired,
               max(e.invalid_at) AS invalid, sum(size(e.episodes)) AS cited
        """
    # the stored vectors of the facts a reranker re-scores, by uuid (an index lookup each)
    FACT_VECTORS = """
        UNWIND $uuids AS u
        MATCH ()-[e:RELATES_TO {uuid: u}]->()
        RETURN u AS uuid, e.fact_embedding AS vector
        """
