"""Write a whole deal (episodes, entities, facts) through graphiti's own models, without an LLM.

Used by the demo seed and the BEIR importer. Ids are deterministic (uuid5 of deal + key), so writing
the same input twice gives the same graph. Vectors come from our embedder in batches; graphiti's
`add_nodes_and_edges_bulk` saves them. Citation metadata that graphiti's `EpisodicNode` does not
persist (document, page, chunk, channel, confidence) is set as extra properties on the episode node.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graphiti_core.driver.driver import GraphDriver
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

from pipeline.embedders.base import LabEmbedder
from pipeline.graph.backend import GraphBackend
from pipeline.ingest.progress import Report, Step
from pipeline.utc import parse_time as parse_time  # re-exported: the loaders read dates with it

NAMESPACE = uuid.UUID("6f1c0a52-1b8e-4c1e-9a55-2f1f2e6b7d10")
CHANNEL_CONFIDENCE = {"document": 0.85, "qa_response": 0.95, "analyst_chat": 0.90}
WRITE_BATCH = 500


def stable_uuid(group_id: str, kind: str, key: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{group_id}:{kind}:{key}"))


@dataclass(frozen=True)
class EpisodeSpec:
    key: str
    name: str
    content: str
    channel: str  # document / qa_response / analyst_chat
    valid_at: datetime
    doc_id: str = ""
    doc_name: str = ""
    page: int | None = None
    chunk: int | None = None
    author: str = ""

    @property
    def source_description(self) -> str:
        if self.channel == "document":
            parts = [f"From: {self.doc_name}"]
            if self.page is not None:
                parts.append(f"Page {self.page}")
            if self.chunk is not None:
                parts.append(f"Chunk {self.chunk}")
            return " | ".join(parts)
        label = "Q&A response" if self.channel == "qa_response" else "Analyst chat"
        return f"{label} | {self.author}" if self.author else label

    @property
    def citation_props(self) -> dict[str, Any]:
        props: dict[str, Any] = {
            "rl_key": self.key,
            "channel": self.channel,
            "confidence": CHANNEL_CONFIDENCE.get(self.channel, 0.85),
            "doc_id": self.doc_id,
            "doc_name": self.doc_name,
            "author": self.author,
        }
        if self.page is not None:
            props["page"] = self.page
        if self.chunk is not None:
            props["chunk"] = self.chunk
        return props

    def to_node(self, uuid: str, group_id: str, created_at: datetime, entity_edges: list[str]) -> EpisodicNode:
        """The graphiti episode this spec writes (its citation fields go on separately: `citation_props`)."""
        return EpisodicNode(
            uuid=uuid,
            name=self.name,
            group_id=group_id,
            source=EpisodeType.message if self.channel == "analyst_chat" else EpisodeType.text,
            source_description=self.source_description,
            content=self.content,
            valid_at=self.valid_at,
            created_at=created_at,
            entity_edges=entity_edges,
        )


@dataclass(frozen=True)
class EntitySpec:
    key: str
    name: str
    labels: tuple[str, ...] = ()
    summary: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FactSpec:
    key: str
    source: str  # entity keys
    target: str
    relation: str
    fact: str
    episodes: tuple[str, ...]
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    expired_at: datetime | None = None
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DealContent:
    episodes: Sequence[EpisodeSpec]
    entities: Sequence[EntitySpec]
    facts: Sequence[FactSpec]


def _batches(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


async def write_deal(
    backend: GraphBackend,
    group_id: str,
    content: DealContent,
    embedder: LabEmbedder,
    report: Report | None = None,
) -> None:
    """Embed and save everything; `report` hears each phase as it starts and each batch as it ends."""

    def say(step: Step) -> None:
        if report is not None:
            report(step)

    backend.require_writable(group_id, "writing the deal")
    driver = backend.driver(group_id)
    await driver.build_indices_and_constraints()
    created = datetime.now(UTC)

    def ep_uuid(key: str) -> str:
        return stable_uuid(group_id, "episode", key)

    def ent_uuid(key: str) -> str:
        return stable_uuid(group_id, "entity", key)

    names = [e.name for e in content.entities]
    name_vectors: list[list[float]] = []
    for batch in _batches(names, WRITE_BATCH):
        say(Step("embedding", "entity names", len(name_vectors), len(names)))
        name_vectors += await embedder.embed_documents(list(batch))
    entity_nodes = [
        EntityNode(
            uuid=ent_uuid(spec.key),
            name=spec.name,
            group_id=group_id,
            labels=list(spec.labels),
            summary=spec.summary,
            name_embedding=vector,
            attributes={"rl_key": spec.key, **spec.attributes},
            created_at=created,
        )
        for spec, vector in zip(content.entities, name_vectors, strict=True)
    ]

    facts_by_episode: dict[str, list[FactSpec]] = {}
    for fact in content.facts:
        for key in fact.episodes:
            facts_by_episode.setdefault(key, []).append(fact)

    episode_nodes = [
        spec.to_node(
            ep_uuid(spec.key),
            group_id,
            created,
            [stable_uuid(group_id, "fact", f.key) for f in facts_by_episode.get(spec.key, [])],
        )
        for spec in content.episodes
    ]
    mentions = {
        (spec.key, entity_key)
        for spec in content.episodes
        for fact in facts_by_episode.get(spec.key, [])
        for entity_key in (fact.source, fact.target)
    }
    episodic_edges = [
        EpisodicEdge(
            uuid=stable_uuid(group_id, "mention", f"{ep}->{ent}"),
            source_node_uuid=ep_uuid(ep),
            target_node_uuid=ent_uuid(ent),
            group_id=group_id,
            created_at=created,
        )
        for ep, ent in sorted(mentions)
    ]
    # each batch of facts is embedded while the one before it (at first, the episodes and entities) is written:
    # the embedder computes in its own threads while the graph server writes
    fact_batches = _batches(content.facts, WRITE_BATCH)
    embedding = _FactVectors(embedder, fact_batches)
    try:
        nodes = len(episode_nodes) + len(entity_nodes)
        say(Step("writing", "episodes and entities", 0, nodes))
        await add_nodes_and_edges_bulk(driver, episode_nodes, episodic_edges, entity_nodes, [], embedder)
        for batch in _batches(content.episodes, WRITE_BATCH):
            await backend.cypher.add_episode_properties(group_id, {ep_uuid(s.key): s.citation_props for s in batch})
        say(Step("writing", "episodes and entities", nodes, nodes))
        await _write_facts(driver, group_id, fact_batches, embedding, embedder, created, say)
    finally:
        embedding.stop()


class _FactVectors:
    """The facts' vectors batch by batch, each batch's embedding started when the one before it is taken."""

    def __init__(self, embedder: LabEmbedder, batches: Sequence[Sequence[FactSpec]]) -> None:
        self.embedder, self.batches = embedder, batches
        self.next: asyncio.Future[list[list[float]]] | None = self._start(0)

    def _start(self, index: int) -> asyncio.Future[list[list[float]]] | None:
        if index >= len(self.batches):
            return None
        return asyncio.ensure_future(self.embedder.embed_documents([f.fact for f in self.batches[index]]))

    async def take(self, index: int) -> list[list[float]]:
        assert self.next is not None
        vectors = await self.next
        self.next = self._start(index + 1)
        return vectors

    def stop(self) -> None:
        """Drop the batch being embedded (the write failed): its result is never read."""
        if self.next is not None and not self.next.done():
            self.next.cancel()


async def _write_facts(
    driver: GraphDriver,
    group_id: str,
    batches: Sequence[Sequence[FactSpec]],
    embedding: _FactVectors,
    embedder: LabEmbedder,
    created: datetime,
    say: Callable[[Step], None],
) -> None:
    total = sum(len(b) for b in batches)
    done = 0
    for index, batch in enumerate(batches):
        say(Step("embedding", "facts", done, total))
        vectors = await embedding.take(index)
        edges = [
            EntityEdge(
                uuid=stable_uuid(group_id, "fact", spec.key),
                group_id=group_id,
                source_node_uuid=stable_uuid(group_id, "entity", spec.source),
                target_node_uuid=stable_uuid(group_id, "entity", spec.target),
                name=spec.relation,
                fact=spec.fact,
                fact_embedding=vector,
                episodes=[stable_uuid(group_id, "episode", k) for k in spec.episodes],
                valid_at=spec.valid_at,
                invalid_at=spec.invalid_at,
                expired_at=spec.expired_at,
                reference_time=spec.valid_at,
                created_at=created,
                attributes={"rl_key": spec.key, **spec.attributes},
            )
            for spec, vector in zip(batch, vectors, strict=True)
        ]
        await add_nodes_and_edges_bulk(driver, [], [], [], edges, embedder)
        done += len(batch)
        say(Step("writing", "facts", done, total))
