"""The openCypher of entity merges: candidates and their name vectors, merge records, and moving facts
between entities (a merge and its undo each one statement, which the database runs atomically)."""

from __future__ import annotations

from typing import Any

from pipeline.graph.dialects.connection import BackendQueries

# Merge records are their own relationship type, not RELATES_TO facts, so no search can return them.
MERGE_RELATION = "IS_DUPLICATE_OF"


class MergeQueries(BackendQueries):
    ENTITIES_WITH_FACT_COUNTS = """
        MATCH (n:Entity {group_id: $g})
        WITH n ORDER BY n.uuid LIMIT $limit
        OPTIONAL MATCH (n)-[e:RELATES_TO]-(:Entity)
        RETURN n.uuid AS uuid, n.name AS name, n.rl_key AS key, n.name_embedding AS vector, count(e) AS facts
        """
    COUNT_ENTITIES = "MATCH (n:Entity {group_id: $g}) RETURN count(n) AS n"
    ENTITY_IN_DEAL = """
        MATCH (n:Entity {uuid: $u}) WHERE n.group_id = $g
        RETURN n.uuid AS uuid, n.name AS name, n.rl_key AS key, n.name_embedding AS vector
        """
    ENTITIES_BY_KEY = """
        MATCH (n:Entity {group_id: $g}) WHERE n.rl_key IN $keys
        RETURN n.rl_key AS key, n.name AS name, n.name_embedding AS vector
        """
    BROUGHT_FACTS = """
        MATCH (s:Entity)-[e:RELATES_TO]->(t:Entity) WHERE e.uuid IN $uuids AND e.group_id = $g
        RETURN e.uuid AS uuid, e.name AS relation, e.fact AS fact, s.uuid AS s, s.name AS s_name,
               t.name AS t_name, e.invalid_at IS NULL AND e.expired_at IS NULL AS current
        """
    ENTITY_FACT_ENDPOINTS = """
        MATCH (s:Entity)-[e:RELATES_TO]->(t:Entity) WHERE (s.uuid = $a OR t.uuid = $a) AND e.group_id = $g
        RETURN e.uuid AS fact, s.uuid AS source, t.uuid AS target ORDER BY e.uuid
        """
    FACT_ENDPOINTS = """
        MATCH (s:Entity)-[e:RELATES_TO]->(t:Entity) WHERE e.uuid IN $uuids AND e.group_id = $g
        RETURN e.uuid AS fact, s.uuid AS source, t.uuid AS target ORDER BY e.uuid
        """
    WRITE_MERGE_RECORD = f"""
        MATCH (a:Entity {{uuid: $alias, group_id: $g}})
        MATCH (c:Entity {{uuid: $canonical, group_id: $g}})
        MERGE (a)-[m:{MERGE_RELATION} {{uuid: $uuid}}]->(c)
        SET m += $props
        """
    MERGE_RECORDS = f"""
        MATCH (a:Entity {{group_id: $g}})-[m:{MERGE_RELATION}]->(c:Entity)
        RETURN properties(m) AS m, a.uuid AS alias_uuid, c.uuid AS canonical_uuid
        ORDER BY m.merged_at
        """
    COUNT_MERGE_RECORD = f"""
        MATCH (:Entity {{group_id: $g}})-[m:{MERGE_RELATION} {{uuid: $uuid}}]->() RETURN count(m) AS n
        """
    # Cypher cannot change a relationship's endpoint, so a moved fact is recreated on the new endpoints with
    # identical properties (`SET e = properties(old)` keeps every property, vectors included, with their
    # types) and the old relationship is deleted. The denormalised `source_node_uuid` / `target_node_uuid`,
    # where present, follow the new endpoints (graphiti reads endpoints from the graph, not from them), so a
    # merged fact looks exactly like one written on the canonical entity in the first place, and an undo
    # puts back exactly what was there.
    MOVE_FACTS = """
        UNWIND $moves AS mv
        MATCH (s:Entity {uuid: mv.source})-[old:RELATES_TO {uuid: mv.fact, group_id: $g}]->(t:Entity {uuid: mv.target})
        MATCH (ns:Entity {uuid: mv.new_source, group_id: $g})
        MATCH (nt:Entity {uuid: mv.new_target, group_id: $g})
        CREATE (ns)-[e:RELATES_TO]->(nt)
        SET e = properties(old)
        SET e.source_node_uuid = CASE WHEN old.source_node_uuid IS NULL THEN NULL ELSE mv.new_source END,
            e.target_node_uuid = CASE WHEN old.target_node_uuid IS NULL THEN NULL ELSE mv.new_target END
        DELETE old
        """
    # The merge record and the moved facts in one query, which the database runs atomically; the guards
    # (alias not merged yet nor a canonical entity, canonical not an alias) are checked inside it.
    APPLY_MERGE = f"""
        MATCH (a:Entity {{uuid: $alias, group_id: $g}})
        MATCH (c:Entity {{uuid: $canonical, group_id: $g}})
        WHERE NOT (a)-[:{MERGE_RELATION}]->() AND NOT ()-[:{MERGE_RELATION}]->(a)
          AND NOT (c)-[:{MERGE_RELATION}]->()
        CREATE (a)-[m:{MERGE_RELATION}]->(c)
        SET m = $props
        WITH m
        {MOVE_FACTS}
        """
    # The facts move back only if the record was there.
    REVERT_MERGE = f"""
        MATCH (:Entity {{group_id: $g}})-[m:{MERGE_RELATION} {{uuid: $uuid}}]->(:Entity)
        DELETE m
        WITH count(*) AS found
        WHERE found > 0
        {MOVE_FACTS}
        """

    async def entities_with_fact_counts(self, group_id: str, limit: int) -> list[dict[str, Any]]:
        """The deal's first `limit` entities by uuid, with their name vector and how many facts touch them."""
        return await self._rows(group_id, self.ENTITIES_WITH_FACT_COUNTS, g=group_id, limit=limit)

    async def count_entities(self, group_id: str) -> int:
        rows = await self._rows(group_id, self.COUNT_ENTITIES, g=group_id)
        return int(rows[0]["n"]) if rows else 0

    async def entity_in_deal(self, group_id: str, entity_uuid: str) -> dict[str, Any] | None:
        rows = await self._rows(group_id, self.ENTITY_IN_DEAL, u=entity_uuid, g=group_id)
        return rows[0] if rows else None

    async def entities_by_key(self, group_id: str, keys: list[str]) -> list[dict[str, Any]]:
        return await self._rows(group_id, self.ENTITIES_BY_KEY, g=group_id, keys=keys)

    async def brought_facts(self, group_id: str, fact_uuids: list[str]) -> list[dict[str, Any]]:
        """The facts merges moved, with the names at both ends and whether each is current."""
        return await self._rows(group_id, self.BROUGHT_FACTS, uuids=fact_uuids, g=group_id)

    async def entity_fact_endpoints(self, group_id: str, entity_uuid: str) -> list[dict[str, Any]]:
        return await self._rows(group_id, self.ENTITY_FACT_ENDPOINTS, a=entity_uuid, g=group_id)

    async def fact_endpoints(self, group_id: str, fact_uuids: list[str]) -> list[dict[str, Any]]:
        return await self._rows(group_id, self.FACT_ENDPOINTS, uuids=fact_uuids, g=group_id)

    async def write_merge_record(
        self, group_id: str, alias_uuid: str, canonical_uuid: str, merge_uuid: str, props: dict[str, Any]
    ) -> None:
        """A merge record alone (no facts move): for data whose facts already sit on the canonical entity."""
        await self._write(
            group_id,
            self.WRITE_MERGE_RECORD,
            alias=alias_uuid,
            canonical=canonical_uuid,
            uuid=merge_uuid,
            props=props,
            g=group_id,
        )

    async def merge_records(self, group_id: str) -> list[dict[str, Any]]:
        return await self._rows(group_id, self.MERGE_RECORDS, g=group_id)

    async def merge_record_exists(self, group_id: str, merge_uuid: str) -> bool:
        rows = await self._rows(group_id, self.COUNT_MERGE_RECORD, uuid=merge_uuid, g=group_id)
        return bool(rows and rows[0]["n"])

    async def apply_merge(
        self, group_id: str, alias_uuid: str, canonical_uuid: str, props: dict[str, Any], moves: list[dict[str, str]]
    ) -> bool:
        """Write the record `props` and move the facts; True when the record is there afterwards."""
        await self._write(
            group_id, self.APPLY_MERGE, alias=alias_uuid, canonical=canonical_uuid, props=props, moves=moves, g=group_id
        )
        return await self.merge_record_exists(group_id, props["uuid"])

    async def revert_merge(self, group_id: str, merge_uuid: str, moves: list[dict[str, str]]) -> bool:
        """Delete the record and move the facts back; True when the record is gone afterwards."""
        await self._write(group_id, self.REVERT_MERGE, uuid=merge_uuid, moves=moves, g=group_id)
        return not await self.merge_record_exists(group_id, merge_uuid)
