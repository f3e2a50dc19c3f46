"""Facts over time: timeline rows, supersession chains, point-in-time ("as of") answers, counts.

Supersession is read from the edge attributes `supersedes` / `superseded_by` (uuids), which our
loaders and fact corrections write. Graphs written by graphiti itself carry no such attributes:
there, an invalidated fact is linked to the fact with the same endpoints and relation whose
`valid_at` equals the old fact's `invalid_at` (graphiti sets exactly that when it supersedes a fact).

Everything here reads the graph; nothing writes it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from pipeline.errors import InvalidInput
from pipeline.lab import Lab
from pipeline.query_sets import load_query_set
from pipeline.retrieval.citations import citation_fields, fetch_episodes
from pipeline.retrieval.retrieve import retrieve
from pipeline.utc import as_utc, to_utc

SelectionKind = Literal["entity", "relation", "query"]
DiffStatus = Literal["unchanged", "superseded", "new"]
QUERY_TOP_K = 20  # facts a topic query puts on the timeline (before whole chains are added)
QUERY_CANDIDATES = 50


@dataclass(frozen=True)
class FactRow:
    uuid: str
    fact: str
    relation: str
    source_uuid: str
    source_name: str
    target_uuid: str
    target_name: str
    episodes: tuple[str, ...]
    valid_at: datetime | None
    invalid_at: datetime | None
    expired_at: datetime | None
    created_at: datetime | None
    supersedes: str | None  # recorded attribute (None for graphiti-written graphs)
    superseded_by: str | None
    channel: str  # channel of the fact's latest episode: document / qa_response / analyst_chat
    citation: str  # one line: document, location, channel, author
    episode_at: datetime | None  # date of the fact's earliest episode

    @property
    def superseded(self) -> bool:
        """Not current: invalidated or expired (the same rule as `Candidate.superseded`)."""
        return self.invalid_at is not None or self.expired_at is not None

    @property
    def starts_at(self) -> datetime | None:
        """Where its bar starts: valid_at, else the date of its earliest episode, else when it was written."""
        return self.valid_at or self.episode_at or self.created_at

    def valid_on(self, when: datetime) -> bool:
        """True on `when` (the same rule as retrieval's as-of filter: unknown valid_at counts as valid)."""
        return (self.valid_at is None or self.valid_at <= when) and (self.invalid_at is None or self.invalid_at > when)


@dataclass(frozen=True)
class Link:
    """`old` was superseded by `new`; `inferred` when no attribute recorded it."""

    old: str
    new: str
    inferred: bool


@dataclass(frozen=True)
class Supersession:
    old: FactRow
    new: FactRow
    inferred: bool

    @property
    def at(self) -> datetime | None:
        return self.old.invalid_at or self.new.valid_at


@dataclass(frozen=True)
class Selection:
    kind: SelectionKind
    value: str  # entity uuid, relation name or query text

    def __post_init__(self) -> None:
        if self.kind not in ("entity", "relation", "query"):
            raise InvalidInput(f"Unknown selection {self.kind!r}: pick an entity, a relation or a topic query.")
        if not isinstance(self.value, str) or not self.value.strip():
            raise InvalidInput(f"Pick or type a {self.kind} first.")


@dataclass(frozen=True)
class Timeline:
    selection: Selection
    facts: tuple[FactRow, ...]  # chain members next to each other, oldest first
    links: tuple[Link, ...]  # only links between the facts shown


@dataclass(frozen=True)
class DiffRow:
    fact: FactRow
    status: DiffStatus  # superseded: true then, not now; new: true now, not then; unchanged: both
    replaced_by: FactRow | None  # for superseded facts: what replaced it, where known


@dataclass(frozen=True)
class AsOfAnswer:
    when: datetime
    then: tuple[FactRow, ...]  # what was true on `when`
    diff: tuple[DiffRow, ...]

    def count(self, status: DiffStatus) -> int:
        return sum(1 for row in self.diff if row.status == status)


@dataclass(frozen=True)
class EntityMatch:
    uuid: str
    name: str
    facts: int


@dataclass(frozen=True)
class SupersessionCounts:
    facts: int
    current: int
    superseded: int
    links: int
    chains: int
    recorded: int
    inferred: int


@dataclass(frozen=True)
class CandidateShare:
    """Over the deal's labelled queries, first stage with include_superseded=True, no reranker."""

    queries: int
    num_candidates: int
    top_k: int
    candidates: int
    superseded_candidates: int
    results: int
    superseded_results: int

    @property
    def share(self) -> float:
        return self.superseded_candidates / self.candidates if self.candidates else 0.0

    @property
    def top_k_share(self) -> float:
        return self.superseded_results / self.results if self.results else 0.0


# --- reading facts ------------------------------------------------------------------------------


def _citation_line(props: dict[str, Any]) -> str:
    fields = citation_fields(props)
    where = [fields["document_name"]]
    if fields["page"] is not None:
        where.append(f"p. {fields['page']}")
    if fields["chunk"]:
        where.append(f"chunk {fields['chunk']}")
    line = f"{', '.join(w for w in where if w)} · {fields['channel'].replace('_', ' ')}"
    return f"{line} · {fields['author']}" if fields["author"] else line


def _fact_row(row: dict[str, Any], episodes: dict[str, dict[str, Any]]) -> FactRow:
    own = [(u, episodes[u]) for u in row.get("episodes") or () if u in episodes]
    dated = sorted(own, key=lambda pair: to_utc(pair[1].get("valid_at")) or datetime.min.replace(tzinfo=UTC))
    latest = dated[-1][1] if dated else {}
    first_at = to_utc(dated[0][1].get("valid_at")) if dated else None
    return FactRow(
        uuid=row["uuid"],
        fact=row.get("fact") or "",
        relation=row.get("relation") or "",
        source_uuid=row["source_uuid"],
        source_name=row.get("source_name") or "",
        target_uuid=row["target_uuid"],
        target_name=row.get("target_name") or "",
        episodes=tuple(row.get("episodes") or ()),
        valid_at=to_utc(row.get("valid_at")),
        invalid_at=to_utc(row.get("invalid_at")),
        expired_at=to_utc(row.get("expired_at")),
        created_at=to_utc(row.get("created_at")),
        supersedes=row.get("supersedes") or None,
        superseded_by=row.get("superseded_by") or None,
        channel=citation_fields(latest)["channel"] if latest else "document",
        citation=_citation_line(latest) if latest else "no source episode",
        episode_at=first_at,
    )


async def load_facts(lab: Lab, group_id: str) -> list[FactRow]:
    """Every fact of the deal (no embeddings), with its channel and citation line."""
    rows = await lab.backend.cypher.facts(group_id)
    episodes = await fetch_episodes(lab.backend, group_id, (u for r in rows for u in r.get("episodes") or ()))
    return [_fact_row(r, episodes) for r in rows]


# --- supersession -------------------------------------------------------------------------------


def infer_links(facts: Iterable[FactRow]) -> list[Link]:
    """Graphiti's own rule, for facts with no recorded link: same endpoints and relation,
    old.invalid_at == new.valid_at. Several matches: the earliest written one wins."""
    facts = list(facts)
    by_key: dict[tuple[str, str, str], list[FactRow]] = defaultdict(list)
    for fact in facts:
        by_key[(fact.source_uuid, fact.target_uuid, fact.relation)].append(fact)
    links = []
    for fact in facts:
        if fact.invalid_at is None or fact.superseded_by:
            continue
        matches = [
            other
            for other in by_key[(fact.source_uuid, fact.target_uuid, fact.relation)]
            if other.uuid != fact.uuid and other.valid_at is not None and other.valid_at == fact.invalid_at
        ]
        if matches:
            newest = min(matches, key=lambda f: (f.created_at or datetime.max.replace(tzinfo=UTC), f.uuid))
            links.append(Link(fact.uuid, newest.uuid, inferred=True))
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


def _chains(facts: Sequence[FactRow], links: Sequence[Link]) -> dict[str, str]:
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
    chain_of = _chains(facts, links)
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


# --- selections: entity, relation, topic query --------------------------------------------------


async def search_entities(lab: Lab, group_id: str, text: str, limit: int = 50) -> list[EntityMatch]:
    """Entities whose name contains `text` (case-insensitive), those with most facts first."""
    rows = await lab.backend.cypher.entities_named(group_id, text.strip(), limit)
    return [EntityMatch(r["uuid"], r["name"], int(r["facts"])) for r in rows]


async def relation_names(lab: Lab, group_id: str) -> list[tuple[str, int]]:
    rows = await lab.backend.cypher.relation_counts(group_id)
    return [(r["name"], int(r["n"])) for r in rows]


async def _query_uuids(lab: Lab, group_id: str, query: str, as_of: datetime | None = None) -> list[str]:
    run = await retrieve(
        lab, query, group_id, QUERY_CANDIDATES, QUERY_TOP_K, "none", include_superseded=as_of is None, as_of=as_of
    )
    return [r.uuid for r in run.results]


def _selected(facts: Sequence[FactRow], selection: Selection) -> list[FactRow]:
    if selection.kind == "entity":
        return [f for f in facts if selection.value in (f.source_uuid, f.target_uuid)]
    return [f for f in facts if f.relation == selection.value]


def _with_chains(chosen: Iterable[str], facts: Sequence[FactRow], links: Sequence[Link]) -> list[FactRow]:
    """The chosen facts plus every fact of their supersession chains, chains together, oldest first."""
    chain_of = _chains(facts, links)
    wanted_chains = {chain_of[u] for u in chosen if u in chain_of}
    members = [f for f in facts if chain_of[f.uuid] in wanted_chains]
    floor = datetime.min.replace(tzinfo=UTC)
    first_start: dict[str, datetime] = {}
    for f in members:
        start = f.starts_at or floor
        first_start[chain_of[f.uuid]] = min(first_start.get(chain_of[f.uuid], start), start)
    return sorted(
        members,
        key=lambda f: (f.relation, first_start[chain_of[f.uuid]], chain_of[f.uuid], f.starts_at or floor, f.uuid),
    )


async def timeline(lab: Lab, group_id: str, selection: Selection) -> Timeline:
    """The facts of an entity, a relation or a topic query, with their whole supersession chains."""
    await lab.deal(group_id)
    facts = await load_facts(lab, group_id)
    links = supersession_links(facts)
    if selection.kind == "query":
        chosen = await _query_uuids(lab, group_id, selection.value)
    else:
        chosen = [f.uuid for f in _selected(facts, selection)]
    shown = _with_chains(chosen, facts, links)
    uuids = {f.uuid for f in shown}
    return Timeline(selection, tuple(shown), tuple(link for link in links if link.old in uuids and link.new in uuids))


async def as_of(lab: Lab, group_id: str, selection: Selection, when: datetime) -> AsOfAnswer:
    """What was true on `when` for the selection, and how each of those facts (and today's) changed since.

    Entity / relation: its facts valid on that date. Topic query: `retrieve(..., as_of=when)`. The diff
    classifies every fact true then or now by its own dates, so ranking noise cannot fake a change.
    """
    await lab.deal(group_id)
    when = as_utc(when)
    facts = await load_facts(lab, group_id)
    by_uuid = {f.uuid: f for f in facts}
    links = supersession_links(facts)
    if selection.kind == "query":
        then_uuids = await _query_uuids(lab, group_id, selection.value, as_of=when)
        now_run = await retrieve(lab, selection.value, group_id, QUERY_CANDIDATES, QUERY_TOP_K, "none")
        then = [by_uuid[u] for u in then_uuids if u in by_uuid]
        pool = [*then, *(by_uuid[r.uuid] for r in now_run.results if r.uuid in by_uuid)]
    else:
        pool = _selected(facts, selection)
        then = sorted((f for f in pool if f.valid_on(when)), key=lambda f: (f.relation, f.fact))
    newer = {link.old: by_uuid[link.new] for link in links}
    diff, seen = [], set()
    for fact in pool:
        if fact.uuid in seen:
            continue
        seen.add(fact.uuid)
        was, now = fact.valid_on(when), not fact.superseded
        if was and now:
            diff.append(DiffRow(fact, "unchanged", None))
        elif was:
            replaced = newer.get(fact.uuid)
            while replaced is not None and replaced.superseded and replaced.uuid in newer:
                replaced = newer[replaced.uuid]  # follow the chain to what holds today
            diff.append(DiffRow(fact, "superseded", replaced))
        elif now:
            diff.append(DiffRow(fact, "new", None))
    order = {"superseded": 0, "new": 1, "unchanged": 2}
    diff.sort(key=lambda r: (order[r.status], r.fact.relation, r.fact.fact))
    return AsOfAnswer(when, tuple(then), tuple(diff))


# --- the deal as a whole ------------------------------------------------------------------------


async def supersession_report(lab: Lab, group_id: str) -> tuple[list[Supersession], SupersessionCounts]:
    """Every superseded fact of the deal with what replaced it, and the deal's counts."""
    await lab.deal(group_id)
    facts = await load_facts(lab, group_id)
    links = supersession_links(facts)
    return supersessions(facts, links), counts(facts, links)


async def superseded_candidate_share(
    lab: Lab, group_id: str, num_candidates: int = QUERY_CANDIDATES, top_k: int = 10
) -> CandidateShare | None:
    """Share of first-stage candidates that are superseded when they are not filtered out
    (include_superseded=True), over the deal's labelled queries; None when the deal has none."""
    await lab.deal(group_id)
    query_set = load_query_set(lab.store, group_id)
    if query_set is None:
        return None
    candidates = superseded = results = superseded_results = 0
    for query in query_set.queries:
        run = await retrieve(lab, query.text, group_id, num_candidates, top_k, "none", include_superseded=True)
        candidates += len(run.candidates)
        superseded += sum(1 for c in run.candidates if c.superseded)
        results += len(run.results)
        superseded_results += sum(1 for r in run.results if r.ranked.candidate.superseded)
    return CandidateShare(
        len(query_set.queries), num_candidates, top_k, candidates, superseded, results, superseded_results
    )
