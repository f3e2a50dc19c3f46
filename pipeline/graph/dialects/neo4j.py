"""Neo4j's dialect: what it spells differently from the openCypher in `common.py` (vectors are plain lists)."""

from __future__ import annotations

from pipeline.graph.dialects.common import FactVectorIndex, GraphQueries
from pipeline.graph.dialects.search import EDGE_FIELDS


class Neo4jQueries(GraphQueries):
    # one database holds every deal, so one index serves them all; the dimension is taken from the vectors
    CREATE_FACT_VECTOR_INDEX = """
        CREATE VECTOR INDEX retrieval_lab_fact_embedding IF NOT EXISTS
        FOR ()-[e:RELATES_TO]-() ON (e.fact_embedding)
        OPTIONS {indexConfig: {`vector.similarity_function`: 'cosine'}}
        """
    FACT_VECTOR_INDEX = """
        SHOW VECTOR INDEXES YIELD name, state, populationPercent
        WHERE name = 'retrieval_lab_fact_embedding'
        RETURN state, populationPercent
        """
    QUERY_FACT_VECTOR_INDEX = f"""
        CALL db.index.vector.queryRelationships('retrieval_lab_fact_embedding', $k, $v)
        YIELD relationship, score
        WITH collect({{e: relationship, score: score}}) AS hits
        UNWIND hits AS hit
        WITH hit.e AS e, hit.score AS score, size(hits) AS answered
        WHERE e.group_id = $g
        RETURN {EDGE_FIELDS}, score, answered
        """

    async def create_fact_vector_index(self, group_id: str, dimension: int) -> None:
        await self._write(group_id, self.CREATE_FACT_VECTOR_INDEX)  # Neo4j >= 5.23 takes the dimension from the data

    async def fact_vector_index(self, group_id: str) -> FactVectorIndex | None:
        for row in await self._rows(group_id, self.FACT_VECTOR_INDEX):
            state = str(row["state"])
            return FactVectorIndex(ready=state == "ONLINE", progress=f"{state} ({row['populationPercent']:.0f}%)")
        return None
