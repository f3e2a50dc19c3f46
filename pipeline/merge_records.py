"""Entity merge records: `(alias:Entity)-[:IS_DUPLICATE_OF]->(canonical:Entity)`.

Graphiti 0.31 writes no merge record, so we keep one: method, score, when, who, and which facts were
moved from the alias to the canonical entity (enough to undo the merge exactly). The alias node and
its name are kept. The relationship type is not RELATES_TO, so no fact search can return it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pipeline.graph.backend import GraphBackend
from pipeline.graph.deals import MERGE_RELATION


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
