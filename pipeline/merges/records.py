"""Entity merge records: `(alias:Entity)-[:IS_DUPLICATE_OF]->(canonical:Entity)`.

Graphiti 0.31 writes no merge record, so we keep one: method, score, when, who, and which facts were
moved from the alias to the canonical entity (enough to undo the merge exactly). The alias node and
its name are kept. The relationship type is not RELATES_TO, so no fact search can return it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pipeline.graph.backend import GraphBackend
from pipeline.graph.dialects.common import MERGE_RELATION


@dataclass(frozen=True)
class MergeRecord:
    uuid: str
    alias_uuid: str
    canonical_uuid: str
    alias_name: str
    canonical_name: str
    method: str  # exact / fuzzy / semantic / manual
    score: float | None
    merged_at: str
    merged_by: str
    moved_facts: tuple[dict[str, str], ...]  # {"fact": uuid, "side": "source" | "target"}


async def write_merge_record(backend: GraphBackend, group_id: str, record: MergeRecord) -> None:
    props = {k: v for k, v in record.__dict__.items() if k not in ("alias_uuid", "canonical_uuid")}
    props["moved_facts"] = json.dumps(list(record.moved_facts))
    props["group_id"] = group_id
    await backend.query(
        group_id,
        f"""
        MATCH (a:Entity {{uuid: $alias}}), (c:Entity {{uuid: $canonical}})
        MERGE (a)-[m:{MERGE_RELATION} {{uuid: $uuid}}]->(c)
        SET m += $props
        """,
        alias=record.alias_uuid,
        canonical=record.canonical_uuid,
        uuid=record.uuid,
        props={k: v for k, v in props.items() if v is not None},
    )


async def read_merge_records(backend: GraphBackend, group_id: str) -> list[MergeRecord]:
    rows = await backend.query(
        group_id,
        f"""
        MATCH (a:Entity {{group_id: $g}})-[m:{MERGE_RELATION}]->(c:Entity)
        RETURN properties(m) AS m, a.uuid AS alias_uuid, c.uuid AS canonical_uuid
        ORDER BY m.merged_at
        """,
        g=group_id,
    )
    return [
        MergeRecord(
            uuid=r["m"]["uuid"],
            alias_uuid=r["alias_uuid"],
            canonical_uuid=r["canonical_uuid"],
            alias_name=r["m"].get("alias_name", ""),
            canonical_name=r["m"].get("canonical_name", ""),
            method=r["m"].get("method", "manual"),
            score=r["m"].get("score"),
            merged_at=r["m"].get("merged_at", ""),
            merged_by=r["m"].get("merged_by", ""),
            moved_facts=tuple(json.loads(r["m"].get("moved_facts") or "[]")),
        )
        for r in rows
    ]


# --- moving facts between an alias and its canonical entity (used by pipeline/merges.py) -------------
#
# Cypher cannot change a relationship's endpoint, so a moved fact is recreated on the new endpoints with
# identical properties (`SET e = properties(old)` keeps every property, vectors included, with their types)
# and the old relationship is deleted. The denormalised `source_node_uuid` / `target_node_uuid` properties,
# where present, follow the new endpoints (graphiti reads endpoints from the graph, not from them), so a
# merged fact looks exactly like one written on the canonical entity in the first place, and an undo puts
# back exactly what was there. Each function is one Cypher query, which FalkorDB runs atomically.

_MOVE = """
    UNWIND $moves AS mv
    MATCH (s:Entity {uuid: mv.source})-[old:RELATES_TO {uuid: mv.fact}]->(t:Entity {uuid: mv.target})
    MATCH (ns:Entity {uuid: mv.new_source}), (nt:Entity {uuid: mv.new_target})
    CREATE (ns)-[e:RELATES_TO]->(nt)
    SET e = properties(old)
    SET e.source_node_uuid = CASE WHEN old.source_node_uuid IS NULL THEN NULL ELSE mv.new_source END,
        e.target_node_uuid = CASE WHEN old.target_node_uuid IS NULL THEN NULL ELSE mv.new_target END
    DELETE old
"""


@dataclass(frozen=True)
class FactMove:
    """One fact re-attached: from (source, target) to (new_source, new_target)."""

    fact: str
    source: str
    target: str
    new_source: str
    new_target: str


def _record_props(group_id: str, record: MergeRecord) -> dict[str, object]:
    props: dict[str, object] = {k: v for k, v in record.__dict__.items() if k not in ("alias_uuid", "canonical_uuid")}
    props["moved_facts"] = json.dumps(list(record.moved_facts))
    props["group_id"] = group_id
    return {k: v for k, v in props.items() if v is not None}


async def apply_merge(backend: GraphBackend, group_id: str, record: MergeRecord, moves: list[FactMove]) -> bool:
    """Write the merge record and move the facts, in one query; False (nothing written) when the alias is
    already merged, is itself a canonical entity, or the canonical is an alias (checked inside the query)."""
    await backend.query(
        group_id,
        f"""
        MATCH (a:Entity {{uuid: $alias}}), (c:Entity {{uuid: $canonical}})
        WHERE NOT (a)-[:{MERGE_RELATION}]->() AND NOT ()-[:{MERGE_RELATION}]->(a)
          AND NOT (c)-[:{MERGE_RELATION}]->()
        CREATE (a)-[m:{MERGE_RELATION}]->(c)
        SET m = $props
        WITH m
        {_MOVE}
        """,
        alias=record.alias_uuid,
        canonical=record.canonical_uuid,
        props=_record_props(group_id, record),
        moves=[m.__dict__ for m in moves],
    )
    rows = await backend.query(
        group_id, f"MATCH ()-[m:{MERGE_RELATION} {{uuid: $uuid}}]->() RETURN count(m) AS n", uuid=record.uuid
    )
    return bool(rows and rows[0]["n"])


async def revert_merge(backend: GraphBackend, group_id: str, merge_uuid: str, moves: list[FactMove]) -> bool:
    """Delete the merge record and move the facts back, in one query (the facts move only if the record was
    there); True when the record is gone afterwards."""
    await backend.query(
        group_id,
        f"""
        MATCH (:Entity)-[m:{MERGE_RELATION} {{uuid: $uuid}}]->(:Entity)
        DELETE m
        WITH count(*) AS found
        WHERE found > 0
        {_MOVE}
        """,
        uuid=merge_uuid,
        moves=[m.__dict__ for m in moves],
    )
    rows = await backend.query(
        group_id, f"MATCH ()-[m:{MERGE_RELATION} {{uuid: $uuid}}]->() RETURN count(m) AS n", uuid=merge_uuid
    )
    return not (rows and rows[0]["n"])
