"""A fact's or an entity's neighbourhood, read from the deal's facts as the Timeline reads them (the same dialect
statement, so it works on shared-graph groups and read-only attachments): the evidence view's data.

A fact's neighbourhood is its two entities, every fact touching either (current before superseded, the fact's own
chain and the facts between the same two entities first), its supersession chain and the episodes citing it. An
entity's is its facts. A hub entity can touch thousands of facts: at most `limit` are kept, and the rest counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pipeline.errors import InvalidInput
from pipeline.retrieval.citations import best_snippet, citation_fields, fetch_episodes
from pipeline.temporal.records import CitingEpisode, FactRow, NeighbourEntity, Neighbourhood, citation_line
from pipeline.temporal.supersession import chains, supersession_links
from pipeline.utc import to_utc

if TYPE_CHECKING:
    from pipeline.lab import Lab

NEIGHBOURHOOD_FACTS = 200  # facts drawn around a focus: a picture still readable, and quick to draw


def _refs(facts: Sequence[FactRow]) -> dict[str, NeighbourEntity]:
    """Every entity of the deal's facts with its counts (facts touching it, and how many of them are current)."""
    names: dict[str, str] = {}
    touching: Counter[str] = Counter()
    current: Counter[str] = Counter()
    for fact in facts:
        for uuid, name in ((fact.source_uuid, fact.source_name), (fact.target_uuid, fact.target_name)):
            names.setdefault(uuid, name)
        for uuid in {fact.source_uuid, fact.target_uuid}:
            touching[uuid] += 1
            current[uuid] += not fact.superseded
    return {u: NeighbourEntity(u, names[u], touching[u], current[u]) for u in names}


def _newest_first(fact: FactRow) -> float:
    start = fact.starts_at
    return -(start.timestamp() if start else datetime.min.replace(tzinfo=UTC).timestamp())


async def neighbourhood(
    lab: Lab, group_id: str, uuid: str, facts: Sequence[FactRow], limit: int = NEIGHBOURHOOD_FACTS
) -> Neighbourhood:
    """The neighbourhood of the fact or entity `uuid` among the deal's `facts` (`load_facts`)."""
    by_uuid = {f.uuid: f for f in facts}
    refs = _refs(facts)
    focus = by_uuid.get(uuid)
    if focus is None and uuid not in refs:
        raise InvalidInput(f"“{uuid[:80]}” is not a fact or an entity of the deal {group_id!r}.")
    links = supersession_links(facts)
    chain: list[FactRow] = []
    if focus is not None:
        ends = (focus.source_uuid, focus.target_uuid)
        chain_of = chains(facts, links)
        floor = datetime.min.replace(tzinfo=UTC)
        chain = sorted(
            (f for f in facts if chain_of[f.uuid] == chain_of[focus.uuid]), key=lambda f: f.starts_at or floor
        )
    else:
        ends = (uuid,)
    in_chain = {f.uuid for f in chain}
    touching = [f for f in facts if f.source_uuid in ends or f.target_uuid in ends or f.uuid in in_chain]
    touching.sort(
        key=lambda f: (
            f.uuid != uuid,
            f.uuid not in in_chain,
            {f.source_uuid, f.target_uuid} != set(ends),  # the facts between the fact's two entities
            f.superseded,
            _newest_first(f),
            f.uuid,
        )
    )
    shown = touching[:limit]
    uuids = {f.uuid for f in shown}
    others = Counter(e for f in shown for e in (f.source_uuid, f.target_uuid) if e not in ends)
    citing: list[CitingEpisode] = []
    if focus is not None:
        episodes = await fetch_episodes(lab.backend, group_id, focus.episodes)
        for episode_uuid in focus.episodes:
            if (props := episodes.get(episode_uuid)) is not None:
                fields = citation_fields(props)
                citing.append(
                    CitingEpisode(
                        uuid=episode_uuid,
                        document=fields["document_name"],
                        page=fields["page"],
                        chunk=fields["chunk"],
                        channel=fields["channel"],
                        citation=citation_line(props),
                        valid_at=to_utc(props.get("valid_at")),
                        snippet=best_snippet(focus.fact, props.get("content") or ""),
                    )
                )
    return Neighbourhood(
        kind="fact" if focus is not None else "entity",
        fact=focus,
        entities=tuple(refs[e] for e in dict.fromkeys(ends)),
        facts=tuple(shown),
        left_out=len(touching) - len(shown),
        neighbours=tuple(refs[e] for e, _ in sorted(others.items(), key=lambda kv: (-kv[1], refs[kv[0]].name))),
        chain=tuple(chain),
        links=tuple(link for link in links if link.old in uuids and link.new in uuids),
        citing=tuple(citing),
    )


def default_focus(facts: Sequence[FactRow]) -> str | None:
    """What the evidence view opens on when no focus is asked for: the newest fact that replaced another (a picture
    with a superseded version in it), else the entity with the most facts; None for a deal without facts."""
    by_uuid = {f.uuid: f for f in facts}
    replacing = [by_uuid[link.new] for link in supersession_links(facts)]
    if replacing:
        return min(replacing, key=lambda f: (_newest_first(f), f.uuid)).uuid
    refs = _refs(facts)
    return min(refs.values(), key=lambda e: (-e.facts, e.name, e.uuid)).uuid if refs else None
