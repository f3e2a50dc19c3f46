"""Admin actions on entity merges: merge, reject a candidate pair, undo a merge.

Each runs under the data directory's admin lock (one admin action at a time, across processes), is validated
inside it (clear refusals, nothing written), is journalled (`pipeline/journal/`: the record and the fact moves
needed to revert it) before its one atomic graph query (`records.py`), and is then audited in SQLite in the
same transaction that commits the journal entry. A failure reverts the graph at once; a kill -9 leaves the
entry open and recovery reverts it, so no change goes unaudited.
"""

from __future__ import annotations

import math
import uuid as uuidlib
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from pipeline.audit import record_audit
from pipeline.errors import InvalidInput
from pipeline.journal.kinds import Finished, register
from pipeline.journal.records import ROLLED_BACK, JournalEntry
from pipeline.journal.run import admin_section, journalled
from pipeline.merges import repo
from pipeline.merges.records import FactMove, MergeRecord, apply_merge, read_merge_records, revert_merge
from pipeline.merges.repo import Rejection
from pipeline.merges.scoring import PairSignals, score_pair
from pipeline.store.db import utc_now
from pipeline.text import one_line
from pipeline.utc import now_iso

if TYPE_CHECKING:
    from pipeline.lab import Lab


class MergeRefused(InvalidInput):
    """A merge, reject or undo that cannot be done; nothing was written."""


KIND_MERGE, KIND_UNDO, KIND_REJECT = "merge", "merge.undo", "merge.reject"  # journal kinds = audit actions


def _actor(actor: str | None) -> str:
    name = one_line(actor)
    if not name:
        raise MergeRefused("Admin actions need the admin's name (it is kept in the audit log).")
    return name


async def _entity(lab: Lab, group_id: str, entity_uuid: str) -> dict[str, Any]:
    if not isinstance(entity_uuid, str) or not entity_uuid.strip():
        raise MergeRefused("Pick an entity: no entity id was given.")
    row = await lab.backend.cypher.entity_in_deal(group_id, entity_uuid)
    if row is None:
        raise MergeRefused(f"No entity {entity_uuid!r} in deal {group_id!r}: it is unknown or belongs to another deal.")
    return row


def _score(a: dict[str, Any], b: dict[str, Any]) -> PairSignals:
    return score_pair(a["name"] or "", b["name"] or "", a.get("vector"), b.get("vector"))


async def score_entities(lab: Lab, group_id: str, uuid_a: str, uuid_b: str) -> PairSignals:
    """The signals of a pair the admin picked (what a merge of the two would record)."""
    return _score(await _entity(lab, group_id, uuid_a), await _entity(lab, group_id, uuid_b))


async def merge_entities(
    lab: Lab, group_id: str, alias_uuid: str, canonical_uuid: str, actor: str | None, score: float | None = None
) -> MergeRecord:
    """Merge `alias` into `canonical`: its facts move to the canonical entity, the alias node and its name
    stay, MENTIONS stay, and an IS_DUPLICATE_OF record (method "manual") keeps what moved, for undo."""
    lab.backend.require_writable(group_id, "the merge")
    who = _actor(actor)
    await lab.deal(group_id)
    if alias_uuid == canonical_uuid:
        raise MergeRefused("An entity cannot be merged into itself: pick two different entities.")
    async with admin_section(lab):
        alias = await _entity(lab, group_id, alias_uuid)
        canonical = await _entity(lab, group_id, canonical_uuid)
        records = await read_merge_records(lab.backend, group_id)
        for r in records:
            if r.alias_uuid == alias_uuid:
                raise MergeRefused(
                    f"{alias['name']!r} is already merged into {r.canonical_name!r}: undo that merge first."
                )
            if r.alias_uuid == canonical_uuid:
                raise MergeRefused(
                    f"{canonical['name']!r} is itself an alias of {r.canonical_name!r}: merge into "
                    f"{r.canonical_name!r} instead (merge chains are not allowed)."
                )
        if any(r.canonical_uuid == alias_uuid for r in records):
            n = sum(r.canonical_uuid == alias_uuid for r in records)
            raise MergeRefused(
                f"{alias['name']!r} is the canonical entity of {n} merge(s): undo those first, or merge the "
                "other way round (merge chains are not allowed)."
            )
        if score is None:
            score = _score(alias, canonical).score
        if not (isinstance(score, int | float) and math.isfinite(score) and 0.0 <= score <= 1.0):
            raise MergeRefused(f"The merge score must be between 0 and 1; got {score!r}.")
        facts = await lab.backend.cypher.entity_fact_endpoints(group_id, alias_uuid)
        moves, moved = [], []
        for f in facts:
            moves.append(
                FactMove(
                    f["fact"],
                    f["source"],
                    f["target"],
                    canonical_uuid if f["source"] == alias_uuid else f["source"],
                    canonical_uuid if f["target"] == alias_uuid else f["target"],
                )
            )
            moved += [{"fact": f["fact"], "side": side} for side in ("source", "target") if f[side] == alias_uuid]
        record = MergeRecord(
            uuid=str(uuidlib.uuid4()),
            alias_uuid=alias_uuid,
            canonical_uuid=canonical_uuid,
            alias_name=alias["name"] or "",
            canonical_name=canonical["name"] or "",
            method="manual",
            score=round(float(score), 4),
            merged_at=now_iso(),
            merged_by=who,
            moved_facts=tuple(moved),
        )
        before = {"record": record.describe(), "moves": [m.__dict__ for m in moves]}
        async with journalled(lab, KIND_MERGE, group_id, who, before) as entry:
            if not await apply_merge(lab.backend, group_id, record, moves):
                entry.refused("the merge query found the entities changed")
                raise MergeRefused(
                    "The entities changed while merging (another merge?); nothing was written. Try again."
                )
            await entry.step("apply_merge")
            with lab.store.transaction() as conn:
                details = {**record.describe(), "facts_moved": len(facts)}
                record_audit(lab.store, who, KIND_MERGE, group_id, alias_uuid, details, conn=conn)
                entry.commit(conn)
    return record


def _from_journal(entry: JournalEntry) -> tuple[MergeRecord, list[FactMove]]:
    data = dict(entry.before["record"])
    data["moved_facts"] = tuple(data["moved_facts"])
    return MergeRecord(**data), [FactMove(**m) for m in entry.before["moves"]]


async def _roll_back_merge(lab: Lab, entry: JournalEntry) -> Finished:
    """Remove the record and move the facts back (a no-op when the merge never reached the graph)."""
    record, moves = _from_journal(entry)
    await revert_merge(lab.backend, entry.group_id, record.uuid, [m.reversed() for m in moves])
    return Finished(ROLLED_BACK, {"undone": KIND_MERGE, "merge_uuid": record.uuid, "alias_uuid": record.alias_uuid})


register(KIND_MERGE, ("apply_merge",), _roll_back_merge)


@dataclass(frozen=True)
class UndoResult:
    record: MergeRecord
    restored: int  # facts moved back to the alias
    missing: tuple[str, ...]  # moved facts that no longer exist


async def undo_merge(lab: Lab, group_id: str, merge_uuid: str, actor: str | None) -> UndoResult:
    """Undo a merge (seeded or made here): its facts go back to the alias and the merge record is removed."""
    lab.backend.require_writable(group_id, "the undo")
    who = _actor(actor)
    await lab.deal(group_id)
    async with admin_section(lab):
        record = next((r for r in await read_merge_records(lab.backend, group_id) if r.uuid == merge_uuid), None)
        if record is None:
            raise MergeRefused(f"No merge {merge_uuid!r} in deal {group_id!r}: it is unknown or already undone.")
        sides: dict[str, set[str]] = defaultdict(set)
        for m in record.moved_facts:
            sides[m["fact"]].add(m["side"])
        rows = await lab.backend.cypher.fact_endpoints(group_id, sorted(sides))
        moves = [
            FactMove(
                r["fact"],
                r["source"],
                r["target"],
                record.alias_uuid if "source" in sides[r["fact"]] else r["source"],
                record.alias_uuid if "target" in sides[r["fact"]] else r["target"],
            )
            for r in rows
        ]
        missing = tuple(sorted(set(sides) - {r["fact"] for r in rows}))
        before = {"record": record.describe(), "moves": [m.__dict__ for m in moves]}
        async with journalled(lab, KIND_UNDO, group_id, who, before) as entry:
            if not await revert_merge(lab.backend, group_id, record.uuid, moves):
                entry.refused("the merge record was not there")  # rolling back would re-create it
                raise MergeRefused("The merge record could not be removed; nothing was changed. Try again.")
            await entry.step("revert_merge")
            with lab.store.transaction() as conn:
                repo.insert_undo(conn, group_id, record, who, utc_now())
                record_audit(
                    lab.store,
                    who,
                    KIND_UNDO,
                    group_id,
                    record.alias_uuid,
                    {"merge": record.describe(), "facts_restored": len(moves), "facts_missing": list(missing)},
                    conn=conn,
                )
                entry.commit(conn)
    return UndoResult(record, len(moves), missing)


async def _roll_back_undo(lab: Lab, entry: JournalEntry) -> Finished:
    """Write the record back and re-move the facts (refused inside the query when the merge is still there)."""
    record, moves = _from_journal(entry)
    await apply_merge(lab.backend, entry.group_id, record, [m.reversed() for m in moves])
    return Finished(ROLLED_BACK, {"undone": KIND_UNDO, "merge_uuid": record.uuid, "alias_uuid": record.alias_uuid})


register(KIND_UNDO, ("revert_merge",), _roll_back_undo)


async def reject_pair(lab: Lab, group_id: str, uuid_a: str, uuid_b: str, actor: str | None) -> Rejection:
    """Mark a candidate pair as not the same entity: it is never suggested again."""
    who = _actor(actor)
    await lab.deal(group_id)
    if uuid_a == uuid_b:
        raise MergeRefused("A pair needs two different entities.")
    async with admin_section(lab):
        found = [await _entity(lab, group_id, uuid_a), await _entity(lab, group_id, uuid_b)]
        a, b = sorted(found, key=lambda e: e["uuid"])
        if frozenset((a["uuid"], b["uuid"])) in repo.rejected_pair_set(lab.store, group_id):
            raise MergeRefused(f"{a['name']!r} and {b['name']!r} are already rejected as duplicates.")
        signals = _score(a, b)
        rejection = Rejection(a["uuid"], b["uuid"], a["name"] or "", b["name"] or "", signals.score, who, utc_now())
        # SQLite only: journalled so that every admin action leaves the same trail, with nothing to roll back
        async with journalled(lab, KIND_REJECT, group_id, who, {"pair": [a["uuid"], b["uuid"]]}) as entry:
            with lab.store.transaction() as conn:
                repo.insert_rejection(conn, group_id, rejection)
                record_audit(
                    lab.store,
                    who,
                    KIND_REJECT,
                    group_id,
                    f"{a['uuid']}|{b['uuid']}",
                    {**asdict(rejection), **asdict(signals)},
                    conn=conn,
                )
                entry.commit(conn)
    return rejection


async def _roll_back_reject(lab: Lab, entry: JournalEntry) -> Finished:
    return Finished(ROLLED_BACK, {"undone": KIND_REJECT, "note": "nothing was written"})


register(KIND_REJECT, (), _roll_back_reject)


def rejected_pairs(lab: Lab, group_id: str) -> list[Rejection]:
    """Pairs rejected in this deal, newest first."""
    return repo.rejections(lab.store, group_id)


def undone_merges(lab: Lab, group_id: str) -> list[dict[str, Any]]:
    """Merges undone in this deal, newest first: the record as it was, who undid it and when."""
    return repo.undone_merges(lab.store, group_id)
