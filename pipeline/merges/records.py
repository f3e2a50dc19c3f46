"""Entity merge records: `(alias:Entity)-[:IS_DUPLICATE_OF]->(canonical:Entity)`.

Graphiti 0.31 writes no merge record, so we keep one: method, score, when, who, and which facts were
moved from the alias to the canonical entity (enough to undo the merge exactly). The alias node and
its name are kept. The relationship type is not RELATES_TO, so no fact search can return it.

Writing a merge (record and moved facts) and reverting one are one graph query each, which the database
runs atomically (the statements are in `pipeline/graph/dialects/merges.py`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from pipeline.graph.backend import GraphBackend
from pipeline.text import one_line

if TYPE_CHECKING:
    from pipeline.lab import Lab


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

    def to_props(self, group_id: str) -> dict[str, Any]:
        """The relationship's properties (the endpoints are the relationship's own; None is left out)."""
        props: dict[str, Any] = {k: v for k, v in self.__dict__.items() if k not in ("alias_uuid", "canonical_uuid")}
        props["moved_facts"] = json.dumps(list(self.moved_facts))
        props["group_id"] = group_id
        return {k: v for k, v in props.items() if v is not None}

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> MergeRecord:
        """From a row of `properties(m) AS m, alias_uuid, canonical_uuid`."""
        m = row["m"]
        return cls(
            uuid=m["uuid"],
            alias_uuid=row["alias_uuid"],
            canonical_uuid=row["canonical_uuid"],
            alias_name=m.get("alias_name", ""),
            canonical_name=m.get("canonical_name", ""),
            method=m.get("method", "manual"),
            score=m.get("score"),
            merged_at=m.get("merged_at", ""),
            merged_by=m.get("merged_by", ""),
            moved_facts=tuple(json.loads(m.get("moved_facts") or "[]")),
        )

    def describe(self) -> dict[str, Any]:
        """Plain JSON-able dict (audit details, the undo log)."""
        return {**asdict(self), "moved_facts": list(self.moved_facts)}


@dataclass(frozen=True)
class FactMove:
    """One fact re-attached: from (source, target) to (new_source, new_target)."""

    fact: str
    source: str
    target: str
    new_source: str
    new_target: str

    def reversed(self) -> FactMove:
        return FactMove(self.fact, self.new_source, self.new_target, self.source, self.target)


def _plain(moves: Sequence[FactMove]) -> list[dict[str, str]]:
    return [m.__dict__ for m in moves]


async def write_merge_record(backend: GraphBackend, group_id: str, record: MergeRecord) -> None:
    await backend.cypher.write_merge_record(
        group_id, record.alias_uuid, record.canonical_uuid, record.uuid, record.to_props(group_id)
    )


async def read_merge_records(backend: GraphBackend, group_id: str) -> list[MergeRecord]:
    return [MergeRecord.from_row(r) for r in await backend.cypher.merge_records(group_id)]


async def apply_merge(backend: GraphBackend, group_id: str, record: MergeRecord, moves: Sequence[FactMove]) -> bool:
    """Write the merge record and move the facts, in one query; False (nothing written) when the alias is
    already merged, is itself a canonical entity, or the canonical is an alias (checked inside the query)."""
    return await backend.cypher.apply_merge(
        group_id, record.alias_uuid, record.canonical_uuid, record.to_props(group_id), _plain(moves)
    )


async def revert_merge(backend: GraphBackend, group_id: str, merge_uuid: str, moves: Sequence[FactMove]) -> bool:
    """Delete the merge record and move the facts back, in one query (the facts move only if the record was
    there); True when the record is gone afterwards."""
    return await backend.cypher.revert_merge(group_id, merge_uuid, _plain(moves))


# --- browsing recorded merges ----------------------------------------------------------------------


@dataclass(frozen=True)
class BroughtFact:
    uuid: str
    side: str  # the alias was the fact's "source" or "target"
    relation: str
    fact: str
    other: str  # the name at the fact's other end
    current: bool  # not superseded
    exists: bool


@dataclass(frozen=True)
class MergeView:
    record: MergeRecord
    facts: tuple[BroughtFact, ...]

    def matches(self, text: str) -> bool:
        needle = one_line(text.lower())
        if not needle:
            return True
        r = self.record
        hay = [r.alias_name, r.canonical_name, r.method, r.merged_by, r.merged_at, *(f.fact for f in self.facts)]
        return any(needle in h.lower() for h in hay if h)


def _brought(moved: dict[str, str], row: dict[str, Any] | None) -> BroughtFact:
    if row is None:
        return BroughtFact(moved["fact"], moved["side"], "", "(this fact no longer exists)", "", False, False)
    other = row["t_name"] if moved["side"] == "source" else row["s_name"]
    return BroughtFact(
        moved["fact"],
        moved["side"],
        row["relation"] or "",
        row["fact"] or "",
        other or "",
        bool(row["current"]),
        True,
    )


async def list_merges(lab: Lab, group_id: str, search: str = "") -> list[MergeView]:
    """Every recorded merge, newest first, with the facts each alias brought; `search` filters them."""
    records = await read_merge_records(lab.backend, group_id)
    wanted = sorted({m["fact"] for r in records for m in r.moved_facts})
    rows = await lab.backend.cypher.brought_facts(group_id, wanted) if wanted else []
    by_uuid = {r["uuid"]: r for r in rows}
    views = [
        MergeView(record, tuple(_brought(moved, by_uuid.get(moved["fact"])) for moved in record.moved_facts))
        for record in sorted(records, key=lambda r: (r.merged_at, r.uuid), reverse=True)
    ]
    return [v for v in views if v.matches(search)]
