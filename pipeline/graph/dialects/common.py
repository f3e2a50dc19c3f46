"""The openCypher that FalkorDB and Neo4j both run: one section per feature, one method per operation.

User text only ever travels in parameters. Methods return plain rows (`list[dict]`) or plain values; the
feature that calls them turns rows into its records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeline.graph.backend import GraphBackend

# Merge records are their own relationship type, not RELATES_TO facts, so no search can return them.
MERGE_RELATION = "IS_DUPLICATE_OF"


class GraphQueries:
    def __init__(self, backend: GraphBackend) -> None:
        self._backend = backend

    async def _rows(self, group_id: str, cypher: str, **params: Any) -> list[dict[str, Any]]:
        return await self._backend.query(group_id, cypher, **params)

    # --- deals ---------------------------------------------------------------------------------------

    REGISTER_DEAL = "MERGE (d:RetrievalLabDeal {group_id: $g}) SET d += $props"
    GET_DEAL = "MATCH (d:RetrievalLabDeal {group_id: $g}) RETURN properties(d) AS d"
    LIST_DEALS = "MATCH (d:RetrievalLabDeal) RETURN d.group_id AS g"
    COUNT_FACTS = """
        MATCH (:Entity)-[e:RELATES_TO {group_id: $g}]->(:Entity)
        RETURN e.invalid_at IS NULL AS current, count(e) AS n
        """
    COUNT_MERGES = f"MATCH (:Entity {{group_id: $g}})-[m:{MERGE_RELATION}]->(:Entity) RETURN count(m) AS n"
    COUNT_NODES = """
        MATCH (n {group_id: $g}) WHERE n:Entity OR n:Episodic
        RETURN n:Entity AS entity, count(n) AS n
        """

    async def register_deal(self, group_id: str, props: dict[str, Any]) -> None:
        await self._rows(group_id, self.REGISTER_DEAL, g=group_id, props=props)

    async def get_deal(self, group_id: str) -> dict[str, Any] | None:
        rows = await self._rows(group_id, self.GET_DEAL, g=group_id)
        return rows[0]["d"] if rows else None

    async def registered_deals(self) -> list[str]:
        """Neo4j keeps every deal in one database: the registered ones (FalkorDB lists its graphs)."""
        return [r["g"] for r in await self._rows("", self.LIST_DEALS)]

    async def deal_counts(self, group_id: str) -> dict[str, int]:
        facts = await self._rows(group_id, self.COUNT_FACTS, g=group_id)
        merges = await self._rows(group_id, self.COUNT_MERGES, g=group_id)
        nodes = await self._rows(group_id, self.COUNT_NODES, g=group_id)
        current = sum(r["n"] for r in facts if r["current"])
        total = sum(r["n"] for r in facts)
        return {
            "facts": total,
            "current_facts": current,
            "superseded_facts": total - current,
            "entities": sum(r["n"] for r in nodes if r["entity"]),
            "episodes": sum(r["n"] for r in nodes if not r["entity"]),
            "merges": merges[0]["n"] if merges else 0,
        }

    # --- retrieval: citations ------------------------------------------------------------------------

    # --- loading -------------------------------------------------------------------------------------

    # --- temporal ------------------------------------------------------------------------------------

    # --- corrections ---------------------------------------------------------------------------------

    # --- merges --------------------------------------------------------------------------------------

    # --- evaluation ----------------------------------------------------------------------------------

    # --- backend maintenance -------------------------------------------------------------------------

    DELETE_DEAL = "MATCH (n {group_id: $g}) DETACH DELETE n"

    async def delete_deal(self, group_id: str) -> None:
        await self._rows(group_id, self.DELETE_DEAL, g=group_id)
