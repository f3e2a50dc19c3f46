"""The graph side of a correction: what it writes, each step's undo, and a snapshot to re-create it.

Written through graphiti's own models (`EpisodicNode`, `EpisodicEdge`, `EntityEdge`), which store the fact's
vector the way each backend wants it (`vecf32` on FalkorDB, `db.create.setRelationshipVectorProperty` on
Neo4j), so no statement here depends on the backend. Our own Cypher (the old fact's supersession
properties, an episode's citation fields) goes through `backend.cypher`.
"""

from __future__ import annotations

import contextlib
import uuid as uuidlib
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.errors import EdgeNotFoundError
from graphiti_core.nodes import EpisodicNode

from pipeline.corrections.records import RESTORED_KEYS, Correction
from pipeline.errors import RetrievalLabError
from pipeline.ingest.loading import EpisodeSpec

if TYPE_CHECKING:
    from pipeline.lab import Lab


async def stored_fact(lab: Lab, group_id: str, fact_uuid: str) -> dict[str, Any] | None:
    """The fact as the graph holds it: an undo must write back exactly these values."""
    return await lab.backend.cypher.fact(group_id, fact_uuid)


@dataclass(frozen=True)
class Plan:
    group_id: str
    old_uuid: str
    prior_props: dict[str, Any]
    episode: EpisodicNode
    citation_props: dict[str, Any]
    mentions: tuple[EpisodicEdge, ...]
    edge: EntityEdge
    expired_at: datetime


def plan_correction(
    old: dict[str, Any], spec: EpisodeSpec, group_id: str, statement: str, vector: list[float], now: datetime
) -> Plan:
    """The new episode (with MENTIONS of the fact's two entities) and the new fact that supersedes `old`."""
    new_uuid, episode_uuid = str(uuidlib.uuid4()), str(uuidlib.uuid4())
    endpoints = list(dict.fromkeys((old["source_uuid"], old["target_uuid"])))
    return Plan(
        group_id=group_id,
        old_uuid=old["uuid"],
        prior_props={key: old.get(key) for key in RESTORED_KEYS},
        episode=spec.to_node(episode_uuid, group_id, now, [new_uuid]),
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
            valid_at=spec.valid_at,
            reference_time=spec.valid_at,
            created_at=now,
            attributes={"rl_key": spec.key, "supersedes": old["uuid"]},
        ),
        expired_at=now,
    )


# --- the steps (each undone by revert_graph; their names are the journal's step names) -----------


async def save_episode(lab: Lab, plan: Plan) -> None:
    driver = lab.backend.driver(plan.group_id)
    await plan.episode.save(driver)
    await lab.backend.cypher.add_episode_properties(plan.group_id, {plan.episode.uuid: plan.citation_props})
    for mention in plan.mentions:
        await mention.save(driver)


async def save_new_fact(lab: Lab, plan: Plan) -> None:
    await plan.edge.save(lab.backend.driver(plan.group_id))


async def supersede_old_fact(lab: Lab, plan: Plan) -> None:
    found = await lab.backend.cypher.set_supersession(
        plan.group_id,
        plan.old_uuid,
        invalid_at=plan.edge.valid_at,
        expired_at=plan.expired_at,
        superseded_by=plan.edge.uuid,
    )
    if not found:
        raise RetrievalLabError("The old fact disappeared while it was being corrected; nothing was changed.")


GRAPH_STEPS = (save_episode, save_new_fact, supersede_old_fact)


async def apply_graph(lab: Lab, plan: Plan) -> None:
    for step in GRAPH_STEPS:
        await step(lab, plan)


async def delete_new_fact(lab: Lab, group_id: str, new_uuid: str) -> None:
    await EntityEdge.delete_by_uuids(lab.backend.driver(group_id), [new_uuid])


async def delete_episode(lab: Lab, group_id: str, episode_uuid: str) -> None:
    await EpisodicNode.delete_by_uuids(lab.backend.driver(group_id), [episode_uuid])  # its MENTIONS edges too


async def restore_old_fact(lab: Lab, group_id: str, old_uuid: str, prior: dict) -> None:
    await lab.backend.cypher.set_supersession(group_id, old_uuid, **{key: prior.get(key) for key in RESTORED_KEYS})


UNDO_STEPS = ("delete_new_fact", "delete_episode", "restore_old_fact")


async def revert_graph(lab: Lab, group_id: str, new_uuid: str, episode_uuid: str, old_uuid: str, prior: dict) -> None:
    """Delete the new fact, its episode and MENTIONS edges; put the old fact's properties back as they were.
    Idempotent: safe whether the correction's steps ran fully, partly or not at all."""
    await delete_new_fact(lab, group_id, new_uuid)
    await delete_episode(lab, group_id, episode_uuid)
    await restore_old_fact(lab, group_id, old_uuid, prior)


# --- undoing an undo ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """A correction's new fact (with its vector), episode and MENTIONS edges, as stored."""

    edge: EntityEdge | None
    episode: dict[str, Any] | None  # every property: graphiti's EpisodicNode has no room for our citation fields
    mentions: tuple[EpisodicEdge, ...]


async def snapshot(lab: Lab, record: Correction) -> Snapshot:
    """What an undo deletes, to re-create it if the undo cannot be recorded."""
    driver = lab.backend.driver(record.group_id)
    edge: EntityEdge | None = None
    mentions: list[EpisodicEdge] = []
    with contextlib.suppress(EdgeNotFoundError):  # graphiti raises when none is found
        found = await EntityEdge.get_by_uuid(driver, record.new_uuid)
        await found.load_fact_embedding(driver)  # get_by_uuid leaves the vector out
        edge = found
    with contextlib.suppress(EdgeNotFoundError):
        mentions = await EpisodicEdge.get_by_uuids(driver, list(record.mention_uuids)) if record.mention_uuids else []
    episodes = await lab.backend.cypher.episodes(record.group_id, [record.episode_uuid])
    return Snapshot(edge, episodes.get(record.episode_uuid), tuple(mentions))


def snapshot_to_json(snap: Snapshot) -> dict[str, Any]:
    """The snapshot as JSON for the journal (the vector's floats survive JSON exactly)."""
    return {
        "edge": snap.edge.model_dump(mode="json") if snap.edge is not None else None,
        "episode": snap.episode,
        "mentions": [m.model_dump(mode="json") for m in snap.mentions],
    }


def snapshot_from_json(data: dict[str, Any]) -> Snapshot:
    return Snapshot(
        EntityEdge.model_validate(data["edge"]) if data.get("edge") is not None else None,
        data.get("episode"),
        tuple(EpisodicEdge.model_validate(m) for m in data.get("mentions") or ()),
    )


async def restore_snapshot(lab: Lab, record: Correction, snap: Snapshot, applied: dict[str, Any]) -> None:
    """Put back what the undo deleted, and the old fact's supersession properties as the correction left them.
    Idempotent (every write is a MERGE on the uuid), so recovery may run it after a partial undo."""
    driver = lab.backend.driver(record.group_id)
    if snap.episode is not None:
        await lab.backend.cypher.restore_episode(record.group_id, snap.episode)
        for mention in snap.mentions:
            await mention.save(driver)
    if snap.edge is not None:
        await snap.edge.save(driver)
    await lab.backend.cypher.set_supersession(record.group_id, record.old_uuid, **applied)
