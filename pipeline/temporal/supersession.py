"""Which fact superseded which: recorded links, links inferred from graphiti's dates, chains and counts.

Supersession is read from the edge attributes `supersedes` / `superseded_by` (uuids), which our
loaders and fact corrections write. Graphs written by graphiti itself carry no such attributes:
there, an invalidated fact is linked to a fact with the same endpoints whose `valid_at` equals the old
fact's `invalid_at` (graphiti sets exactly that when it supersedes a fact), the same relation name preferred.
Pure functions over `FactRow`s: nothing here reads or writes the graph.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from pipeline.temporal.records import FactRow, Link, Supersession, SupersessionCounts


def infer_links(facts: Iterable[FactRow]) -> list[Link]:
    """Graphiti's own rule, for facts with no recorded link: a fact between the same two entities whose
    `valid_at` equals the old fact's `invalid_at` (graphiti invalidates a fact about the same pair of entities,
    and an LLM may name the restating relation differently). A successor with the same relation name is
    preferred; among equals the earliest written one wins."""
    facts = list(facts)
    by_pair: dict[tuple[str, str], list[FactRow]] = defaultdict(list)
    for fact in facts:
        by_pair[(fact.source_uuid, fact.target_uuid)].append(fact)
    links = []
    for fact in facts:
        if fact.invalid_at is None or fact.superseded_by:
            continue
        matches = [
            other
            for other in by_pair[(fact.source_uuid, fact.target_uuid)]
            if other.uuid != fact.uuid and other.valid_at is not None and other.valid_at == fact.invalid_at
        ]
        if matches:
            best = min(
                matches,
                key=lambda f: (
                    f.relation != fact.relation,
                    f.created_at or datetime.max.replace(tzinfo=UTC),
                    f.uuid,
                ),
            )
            links.append(Link(fact.uuid, best.uuid, inferred=True))
    return links


def supersession_links(facts: Sequence[FactRow]) -> list[Link]:
    """Recorded links (either attribute), then inferred ones for facts that record none."""
    known = {f.uuid for f in facts}
    recorded: dict[str, Link] = {}
    for fact in facts:
        if fact.superseded_by and fact.superseded_by in known:
            recorded[fact.uuid] = Link(fact.uuid, fact.superseded_by, inferred=False)
        if fact.supersedes and fact.supersedes in known and fact.supersedes not in recorded:
            recorded[fact.supersedes] = Link(fact.supersedes, fact.uuid, inferred=False)
    inferred = [link for link in infer_links(facts) if link.old not in recorded]
    return [*recorded.values(), *inferred]


def chains(facts: Sequence[FactRow], links: Sequence[Link]) -> dict[str, str]:
    """fact uuid -> the uuid of the first fact of its chain (union-find over the links)."""
    parent = {f.uuid: f.uuid for f in facts}

    def root(u: str) -> str:
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    for link in links:
        a, b = root(link.old), root(link.new)
        if a != b:
            parent[b] = a
    return {u: root(u) for u in parent}


def supersessions(facts: Sequence[FactRow], links: Sequence[Link] | None = None) -> list[Supersession]:
    by_uuid = {f.uuid: f for f in facts}
    links = supersession_links(facts) if links is None else links
    rows = [Supersession(by_uuid[link.old], by_uuid[link.new], link.inferred) for link in links]
    return sorted(rows, key=lambda s: (s.at or datetime.min.replace(tzinfo=UTC), s.old.fact))


def counts(facts: Sequence[FactRow], links: Sequence[Link] | None = None) -> SupersessionCounts:
    links = supersession_links(facts) if links is None else links
    chain_of = chains(facts, links)
    superseded = sum(1 for f in facts if f.superseded)
    return SupersessionCounts(
        facts=len(facts),
        current=len(facts) - superseded,
        superseded=superseded,
        links=len(links),
        chains=len({chain_of[link.old] for link in links}),
        recorded=sum(1 for link in links if not link.inferred),
        inferred=sum(1 for link in links if link.inferred),
    )
