"""Facts over time, read from the graph: the timeline of a selection, point-in-time ("as of") answers with
the diff from today, the deal's supersessions, and how many first-stage candidates are superseded.

Everything here reads the graph; nothing writes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pipeline.query_sets import load_query_set
from pipeline.retrieval.citations import fetch_episodes
from pipeline.retrieval.retrieve import retrieve
from pipeline.retrieval.setting import setting
from pipeline.temporal.records import (
    AsOfAnswer,
    CandidateShare,
    DiffRow,
    EntityMatch,
    FactRow,
    FactSelection,
    Link,
    Supersession,
    SupersessionCounts,
    Timeline,
    fact_row,
)
from pipeline.temporal.supersession import chains, counts, supersession_links, supersessions
from pipeline.utc import as_utc

if TYPE_CHECKING:
    from pipeline.lab import Lab

QUERY_TOP_K = 20  # facts a topic query puts on the timeline (before whole chains are added)
QUERY_CANDIDATES = 50


# --- reading facts ------------------------------------------------------------------------------


async def load_facts(lab: Lab, group_id: str) -> list[FactRow]:
    """Every fact of the deal (no embeddings), with its channel and citation line."""
    rows = await lab.backend.cypher.facts(group_id)
    episodes = await fetch_episodes(lab.backend, group_id, (u for r in rows for u in r.get("episodes") or ()))
    return [fact_row(r, episodes) for r in rows]


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


def _selected(facts: Sequence[FactRow], selection: FactSelection) -> list[FactRow]:
    if selection.kind == "entity":
        return [f for f in facts if selection.value in (f.source_uuid, f.target_uuid)]
    return [f for f in facts if f.relation == selection.value]


def _withchains(chosen: Iterable[str], facts: Sequence[FactRow], links: Sequence[Link]) -> list[FactRow]:
    """The chosen facts plus every fact of their supersession chains, chains together, oldest first."""
    chain_of = chains(facts, links)
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


async def deal_facts(lab: Lab, group_id: str, facts: Sequence[FactRow] | None) -> Sequence[FactRow]:
    """The deal's facts: those given (a caller that already loaded them for this state of the deal), else read."""
    await lab.deal(group_id)
    return await load_facts(lab, group_id) if facts is None else facts


async def timeline(
    lab: Lab, group_id: str, selection: FactSelection, facts: Sequence[FactRow] | None = None
) -> Timeline:
    """The facts of an entity, a relation or a topic query, with their whole supersession chains (`facts`:
    the deal's facts if already loaded; reading them is most of the time on a big deal)."""
    facts = await deal_facts(lab, group_id, facts)
    links = supersession_links(facts)
    if selection.kind == "query":
        chosen = await _query_uuids(lab, group_id, selection.value)
    else:
        chosen = [f.uuid for f in _selected(facts, selection)]
    shown = _withchains(chosen, facts, links)
    uuids = {f.uuid for f in shown}
    return Timeline(selection, tuple(shown), tuple(link for link in links if link.old in uuids and link.new in uuids))


async def as_of(
    lab: Lab, group_id: str, selection: FactSelection, when: datetime, facts: Sequence[FactRow] | None = None
) -> AsOfAnswer:
    """What was true on `when` for the selection, and how each of those facts (and today's) changed since.

    Entity / relation: its facts valid on that date. Topic query: `retrieve(..., as_of=when)`. The diff
    classifies every fact true then or now by its own dates, so ranking noise cannot fake a change.
    """
    when = as_utc(when)
    facts = await deal_facts(lab, group_id, facts)
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


async def supersession_report(
    lab: Lab, group_id: str, facts: Sequence[FactRow] | None = None
) -> tuple[list[Supersession], SupersessionCounts]:
    """Every superseded fact of the deal with what replaced it, and the deal's counts."""
    facts = await deal_facts(lab, group_id, facts)
    links = supersession_links(facts)
    return supersessions(facts, links), counts(facts, links)


async def superseded_candidate_share(
    lab: Lab, group_id: str, candidates: int = QUERY_CANDIDATES, top_k: int = 10
) -> CandidateShare | None:
    """Share of first-stage candidates that are superseded when they are not filtered out
    (include_superseded=True), over the deal's labelled queries; None when the deal has none."""
    await lab.deal(group_id)
    query_set = load_query_set(lab.store, group_id)
    if query_set is None:
        return None
    measured = setting(candidates=candidates, reranker="none", top_k=top_k).validate()
    found = superseded = results = superseded_results = 0
    for query in query_set.queries:
        run = await retrieve(
            lab,
            query.text,
            group_id,
            measured.candidates,
            measured.top_k,
            measured.reranker,
            include_superseded=True,
            recipe=measured.recipe,
        )
        found += len(run.candidates)
        superseded += sum(1 for c in run.candidates if c.superseded)
        results += len(run.results)
        superseded_results += sum(1 for r in run.results if r.ranked.candidate.superseded)
    return CandidateShare(measured, len(query_set.queries), found, superseded, results, superseded_results)
