"""Correct a fact (admin action) and undo the correction, all or nothing, audited.

A correction writes, through graphiti's own models: a new episode (the Q&A answer or analyst note
that carries the corrected statement, with our citation properties), its MENTIONS edges to the
fact's two entities, and a new `EntityEdge` (same endpoints and relation, embedded with the lab's
embedder, `valid_at` = the given date, `supersedes` = the old uuid). The old fact then gets
`invalid_at` = the new `valid_at`, `expired_at` = now and `superseded_by` = the new uuid: the way
graphiti itself supersedes a fact, plus the link it does not record.

Everything is validated before the first write. FalkorDB has no multi-statement transactions, so
the graph steps are undone in reverse when one fails, and the SQLite record (with the old fact's
prior property values, what undo needs) lands in one transaction with its audit entry, after the
graph is written; if that transaction fails, the graph is put back. Undo is the same in reverse.
"""

from __future__ import annotations

import asyncio
import json
import uuid as uuidlib
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EpisodeType, EpisodicNode

from pipeline.audit import record_audit
from pipeline.errors import InvalidInput, RetrievalLabError
from pipeline.ingest.loading import EpisodeSpec, parse_time
from pipeline.lab import Lab
from pipeline.store.db import Store, utc_now

CORRECTION_CHANNELS = {"qa_response": "Q&A answer", "analyst_chat": "Analyst note"}
MAX_STATEMENT_CHARS = 2000
RESTORED_KEYS = ("invalid_at", "expired_at", "superseded_by")  # what a correction changes on the old fact
ACTION_CORRECT, ACTION_UNDO = "fact.correct", "fact.undo_correct"

_locks: dict[str, asyncio.Lock] = {}


class CorrectionRefused(InvalidInput):
    """A correction or undo that cannot be done as asked; nothing was written."""


@dataclass(frozen=True)
class CorrectionRequest:
    fact_uuid: str
    statement: str  # the corrected fact, one sentence
    channel: str  # qa_response / analyst_chat
    author: str  # who answered or wrote the note
    valid_at: datetime | date  # when the source said it; the new fact is valid from then
    source_text: str = ""  # the answer or note as written (default: the statement)


@dataclass(frozen=True)
class Correction:
    id: str
    group_id: str
    old_uuid: str
    new_uuid: str
    episode_uuid: str
    mention_uuids: tuple[str, ...]
    old_fact: str
    new_fact: str
    channel: str
    author: str
    valid_at: str
    prior_props: dict[str, Any]  # the old fact's RESTORED_KEYS before the correction (None = absent)
    actor: str
    created_at: str
    audit_id: int
    undone_at: str | None = None
    undone_by: str | None = None
    undo_audit_id: int | None = None

    @property
    def undone(self) -> bool:
        return self.undone_at is not None


# --- reading ------------------------------------------------------------------------------------


def _record(row: Any) -> Correction:
    data = dict(row)
    data["mention_uuids"] = tuple(json.loads(data["mention_uuids"]))
    data["prior_props"] = json.loads(data["prior_props"])
    return Correction(**data)


def list_corrections(store: Store, group_id: str) -> list[Correction]:
    rows = store.query("SELECT * FROM fact_corrections WHERE group_id = ? ORDER BY created_at DESC, id", (group_id,))
    return [_record(r) for r in rows]


def get_correction(store: Store, correction_id: str) -> Correction | None:
    rows = store.query("SELECT * FROM fact_corrections WHERE id = ?", (correction_id,))
    return _record(rows[0]) if rows else None


async def _fact(lab: Lab, group_id: str, fact_uuid: str) -> dict[str, Any] | None:
    rows = await lab.backend.query(
        group_id,
        """
        MATCH (a:Entity)-[e:RELATES_TO {uuid: $u}]->(b:Entity) WHERE e.group_id = $g
        RETURN e.uuid AS uuid, e.name AS name, e.fact AS fact, e.valid_at AS valid_at,
               e.invalid_at AS invalid_at, e.expired_at AS expired_at, e.superseded_by AS superseded_by,
               a.uuid AS source_uuid, b.uuid AS target_uuid
        """,
        u=fact_uuid,
        g=group_id,
    )
    return rows[0] if rows else None


# --- validation ---------------------------------------------------------------------------------


def _as_datetime(value: datetime | date) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    raise CorrectionRefused("The date of the source is missing.")


def _clean(text: str) -> str:
    return " ".join(str(text or "").split())


async def validate(lab: Lab, group_id: str, request: CorrectionRequest) -> tuple[dict[str, Any], datetime]:
    """The old fact and the new valid_at, or CorrectionRefused saying what to change."""
    statement = _clean(request.statement)
    if not statement:
        raise CorrectionRefused("The corrected statement is empty: write the fact as it should read.")
    if len(statement) > MAX_STATEMENT_CHARS:
        raise CorrectionRefused(f"The statement is {len(statement):,} characters; the limit is {MAX_STATEMENT_CHARS}.")
    if request.channel not in CORRECTION_CHANNELS:
        raise CorrectionRefused(
            f"Source {request.channel!r} is not accepted: use a Q&A answer (qa_response) or an analyst note "
            "(analyst_chat)."
        )
    if not _clean(request.author):
        raise CorrectionRefused("Say who gave the corrected answer or wrote the note.")
    valid_at = _as_datetime(request.valid_at)
    if valid_at > datetime.now(UTC):
        raise CorrectionRefused(f"The date {valid_at.date()} is in the future: use the date the source said it.")
    await lab.deal(group_id)
    old = await _fact(lab, group_id, str(request.fact_uuid or ""))
    if old is None:
        raise CorrectionRefused(f"No fact with uuid {request.fact_uuid!r} in deal {group_id!r}.")
    if old.get("invalid_at") or old.get("expired_at"):
        raise CorrectionRefused(
            f"That fact is already superseded (invalid since {old.get('invalid_at') or old.get('expired_at')}): "
            "correct the fact that replaced it."
        )
    old_valid = parse_time(old.get("valid_at"))
    if old_valid is not None and valid_at < old_valid:
        raise CorrectionRefused(
            f"The date {valid_at.date()} is before the fact became valid ({old_valid.date()}): "
            "a correction cannot end a fact before it began."
        )
    if statement == _clean(old["fact"]):
        raise CorrectionRefused("The corrected statement is the same as the current fact: nothing to correct.")
    return old, valid_at


# --- graph steps (each undone by _revert_graph) -------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    group_id: str
    old_uuid: str
    prior_props: dict[str, Any]
    episode: EpisodicNode
    citation_props: dict[str, Any]
    mentions: tuple[EpisodicEdge, ...]
    edge: EntityEdge
    expired_at: datetime


async def _save_episode(lab: Lab, plan: _Plan) -> None:
    driver = lab.backend.driver(plan.group_id)
    await plan.episode.save(driver)
    await lab.backend.query(
        plan.group_id, "MATCH (n:Episodic {uuid: $u}) SET n += $props", u=plan.episode.uuid, props=plan.citation_props
    )
    for mention in plan.mentions:
        await mention.save(driver)


async def _save_new_fact(lab: Lab, plan: _Plan) -> None:
    await plan.edge.save(lab.backend.driver(plan.group_id))


async def _supersede_old_fact(lab: Lab, plan: _Plan) -> None:
    rows = await lab.backend.query(
        plan.group_id,
        """
        MATCH (:Entity)-[e:RELATES_TO {uuid: $u}]->(:Entity)
        SET e.invalid_at = $invalid_at, e.expired_at = $expired_at, e.superseded_by = $new
        RETURN e.uuid AS uuid
        """,
        u=plan.old_uuid,
        invalid_at=plan.edge.valid_at,
        expired_at=plan.expired_at,
        new=plan.edge.uuid,
    )
    if not rows:
        raise RetrievalLabError("The old fact disappeared while it was being corrected; nothing was changed.")


GRAPH_STEPS = (_save_episode, _save_new_fact, _supersede_old_fact)


async def _apply_graph(lab: Lab, plan: _Plan) -> None:
    for step in GRAPH_STEPS:
        await step(lab, plan)


async def _revert_graph(lab: Lab, group_id: str, new_uuid: str, episode_uuid: str, old_uuid: str, prior: dict) -> None:
    """Delete the new fact, its episode and MENTIONS edges; put the old fact's properties back as they were."""
    await lab.backend.query(group_id, "MATCH ()-[e:RELATES_TO {uuid: $u}]->() DELETE e", u=new_uuid)
    await lab.backend.query(group_id, "MATCH (n:Episodic {uuid: $u}) DETACH DELETE n", u=episode_uuid)
    assignments = ", ".join(f"e.{key} = $prior.{key}" for key in RESTORED_KEYS)  # fixed keys, values as params
    await lab.backend.query(
        group_id,
        f"MATCH (:Entity)-[e:RELATES_TO {{uuid: $u}}]->(:Entity) SET {assignments}",
        u=old_uuid,
        prior={key: prior.get(key) for key in RESTORED_KEYS},
    )


async def _snapshot(lab: Lab, group_id: str, new_uuid: str, episode_uuid: str) -> dict[str, Any]:
    """The new fact, its episode and MENTIONS edges as stored (to re-create them if an undo fails)."""
    edge = await lab.backend.query(
        group_id,
        "MATCH (a)-[e:RELATES_TO {uuid: $u}]->(b) RETURN a.uuid AS a, b.uuid AS b, properties(e) AS p",
        u=new_uuid,
    )
    episode = await lab.backend.query(
        group_id, "MATCH (n:Episodic {uuid: $u}) RETURN properties(n) AS p", u=episode_uuid
    )
    mentions = await lab.backend.query(
        group_id,
        "MATCH (n:Episodic {uuid: $u})-[m:MENTIONS]->(t) RETURN t.uuid AS t, properties(m) AS p",
        u=episode_uuid,
    )
    return {"edge": edge[0] if edge else None, "episode": episode[0]["p"] if episode else None, "mentions": mentions}


async def _restore_snapshot(lab: Lab, group_id: str, snap: dict[str, Any], old_uuid: str, applied: dict) -> None:
    if snap["episode"] is not None:
        await lab.backend.query(group_id, "MERGE (n:Episodic {uuid: $p.uuid}) SET n = $p", p=snap["episode"])
        for m in snap["mentions"]:
            await lab.backend.query(
                group_id,
                "MATCH (n:Episodic {uuid: $e}), (t:Entity {uuid: $t}) MERGE (n)-[m:MENTIONS {uuid: $p.uuid}]->(t) "
                "SET m = $p",
                e=snap["episode"]["uuid"],
                t=m["t"],
                p=m["p"],
            )
    if snap["edge"] is not None:
        props = dict(snap["edge"]["p"])
        vector = props.pop("fact_embedding", None)
        await lab.backend.query(
            group_id,
            "MATCH (a:Entity {uuid: $a}), (b:Entity {uuid: $b}) MERGE (a)-[e:RELATES_TO {uuid: $p.uuid}]->(b) "
            "SET e = $p SET e.fact_embedding = vecf32($v)",
            a=snap["edge"]["a"],
            b=snap["edge"]["b"],
            p=props,
            v=vector,
        )
    await lab.backend.query(
        group_id,
        "MATCH (:Entity)-[e:RELATES_TO {uuid: $u}]->(:Entity) "
        "SET e.invalid_at = $p.invalid_at, e.expired_at = $p.expired_at, e.superseded_by = $p.superseded_by",
        u=old_uuid,
        p=applied,
    )


# --- the two admin actions ----------------------------------------------------------------------


def _lock(group_id: str) -> asyncio.Lock:
    return _locks.setdefault(group_id, asyncio.Lock())


async def correct_fact(lab: Lab, group_id: str, request: CorrectionRequest, actor: str) -> Correction:
    """Supersede a current fact with a corrected one; all of it or nothing, audited as `fact.correct`."""
    if not _clean(actor):
        raise CorrectionRefused("Corrections are audited: an admin name is required.")
    async with _lock(group_id):
        old, valid_at = await validate(lab, group_id, request)
        store = lab.store
        statement = _clean(request.statement)
        correction_id = uuidlib.uuid4().hex
        now = datetime.now(UTC)
        label = CORRECTION_CHANNELS[request.channel]
        spec = EpisodeSpec(
            key=f"correction-{correction_id}",
            name=f"{label} (correction) {valid_at.date()}",
            content=(request.source_text or "").strip() or statement,
            channel=request.channel,
            valid_at=valid_at,
            doc_id=f"correction-{correction_id}",
            doc_name=f"{label} (correction) {valid_at.date()}",
            author=_clean(request.author),
        )
        new_uuid, episode_uuid = str(uuidlib.uuid4()), str(uuidlib.uuid4())
        endpoints = list(dict.fromkeys((old["source_uuid"], old["target_uuid"])))
        vector = (await lab.embedder.embed_documents([statement]))[0]
        plan = _Plan(
            group_id=group_id,
            old_uuid=old["uuid"],
            prior_props={key: old.get(key) for key in RESTORED_KEYS},
            episode=EpisodicNode(
                uuid=episode_uuid,
                name=spec.name,
                group_id=group_id,
                source=EpisodeType.message if request.channel == "analyst_chat" else EpisodeType.text,
                source_description=spec.source_description,
                content=spec.content,
                valid_at=valid_at,
                created_at=now,
                entity_edges=[new_uuid],
            ),
            citation_props=spec.citation_props,
            mentions=tuple(
                EpisodicEdge(
                    uuid=str(uuidlib.uuid4()),
                    group_id=group_id,
                    source_node_uuid=episode_uuid,
                    target_node_uuid=entity,
                    created_at=now,
                )
                for entity in endpoints
            ),
            edge=EntityEdge(
                uuid=new_uuid,
                group_id=group_id,
                source_node_uuid=old["source_uuid"],
                target_node_uuid=old["target_uuid"],
                name=old["name"],
                fact=statement,
                fact_embedding=vector,
                episodes=[episode_uuid],
                valid_at=valid_at,
                reference_time=valid_at,
                created_at=now,
                attributes={"rl_key": f"correction-{correction_id}", "supersedes": old["uuid"]},
            ),
            expired_at=now,
        )
        revert = (new_uuid, episode_uuid, old["uuid"], plan.prior_props)
        try:
            await _apply_graph(lab, plan)
        except BaseException:
            await _revert_graph(lab, group_id, *revert)
            raise
        record = Correction(
            id=correction_id,
            group_id=group_id,
            old_uuid=old["uuid"],
            new_uuid=new_uuid,
            episode_uuid=episode_uuid,
            mention_uuids=tuple(m.uuid for m in plan.mentions),
            old_fact=old["fact"],
            new_fact=statement,
            channel=request.channel,
            author=spec.author,
            valid_at=valid_at.isoformat(),
            prior_props=plan.prior_props,
            actor=_clean(actor),
            created_at=utc_now(),
            audit_id=0,
        )
        try:
            record = _write_correction(store, record)
        except BaseException:
            await _revert_graph(lab, group_id, *revert)
            raise
        return record


def _write_correction(store: Store, record: Correction) -> Correction:
    """The correction record and its audit entry, in one SQLite transaction."""
    with store.transaction() as conn:
        audit_id = record_audit(
            store,
            record.actor,
            ACTION_CORRECT,
            record.group_id,
            record.old_uuid,
            {
                "correction_id": record.id,
                "old_uuid": record.old_uuid,
                "new_uuid": record.new_uuid,
                "episode_uuid": record.episode_uuid,
                "old_fact": record.old_fact,
                "new_fact": record.new_fact,
                "channel": record.channel,
                "author": record.author,
                "valid_at": record.valid_at,
                "prior": record.prior_props,
            },
            conn=conn,
        )
        conn.execute(
            """
            INSERT INTO fact_corrections (id, group_id, old_uuid, new_uuid, episode_uuid, mention_uuids, old_fact,
                new_fact, channel, author, valid_at, prior_props, actor, created_at, audit_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            (
                record.id, record.group_id, record.old_uuid, record.new_uuid, record.episode_uuid,
                json.dumps(list(record.mention_uuids)), record.old_fact, record.new_fact, record.channel,
                record.author, record.valid_at, json.dumps(record.prior_props, default=str), record.actor,
                record.created_at, audit_id,
            ),
        )  # fmt: skip
    return Correction(**{**record.__dict__, "audit_id": audit_id})


async def undo_correction(lab: Lab, group_id: str, correction_id: str, actor: str) -> Correction:
    """Put the graph back exactly as it was before the correction; audited as `fact.undo_correct`."""
    if not _clean(actor):
        raise CorrectionRefused("Undo is audited: an admin name is required.")
    async with _lock(group_id):
        store = lab.store
        record = get_correction(store, str(correction_id or ""))
        if record is None or record.group_id != group_id:
            raise CorrectionRefused(f"No correction {correction_id!r} in deal {group_id!r}.")
        if record.undone:
            raise CorrectionRefused(f"That correction was already undone by {record.undone_by} at {record.undone_at}.")
        await lab.deal(group_id)
        later = [c for c in list_corrections(store, group_id) if c.old_uuid == record.new_uuid and not c.undone]
        new = await _fact(lab, group_id, record.new_uuid)
        if later or (new is not None and (new.get("invalid_at") or new.get("expired_at"))):
            raise CorrectionRefused(
                "The corrected fact was itself corrected or superseded later: undo that later change first."
            )
        old = await _fact(lab, group_id, record.old_uuid)
        if new is None or old is None:
            raise CorrectionRefused("The facts of that correction are no longer in the graph; nothing was changed.")
        if old.get("superseded_by") != record.new_uuid:
            raise CorrectionRefused("The old fact was changed since the correction; nothing was changed.")
        applied = {key: old.get(key) for key in RESTORED_KEYS}
        snap = await _snapshot(lab, group_id, record.new_uuid, record.episode_uuid)
        try:
            await _revert_graph(
                lab, group_id, record.new_uuid, record.episode_uuid, record.old_uuid, record.prior_props
            )
        except BaseException:
            await _restore_snapshot(lab, group_id, snap, record.old_uuid, applied)
            raise
        try:
            return _write_undo(store, record, _clean(actor))
        except BaseException:
            await _restore_snapshot(lab, group_id, snap, record.old_uuid, applied)
            raise


def _write_undo(store: Store, record: Correction, actor: str) -> Correction:
    at = utc_now()
    with store.transaction() as conn:
        audit_id = record_audit(
            store,
            actor,
            ACTION_UNDO,
            record.group_id,
            record.old_uuid,
            {
                "correction_id": record.id,
                "old_uuid": record.old_uuid,
                "new_uuid": record.new_uuid,
                "old_fact": record.old_fact,
                "new_fact": record.new_fact,
                "restored": record.prior_props,
            },
            conn=conn,
        )
        updated = conn.execute(
            "UPDATE fact_corrections SET undone_at = ?, undone_by = ?, undo_audit_id = ? "
            "WHERE id = ? AND undone_at IS NULL",
            (at, actor, audit_id, record.id),
        ).rowcount
        if updated != 1:
            raise CorrectionRefused("That correction was undone meanwhile; nothing was changed.")
    return Correction(**{**record.__dict__, "undone_at": at, "undone_by": actor, "undo_audit_id": audit_id})
