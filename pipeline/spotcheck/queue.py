"""Review queues: collect candidate items from a source, sample them, store the queue.

Sources
- `query_set`: `retrieve()` for every labelled query of the deal (sorted by id), its top-k results and
  each of their citations. `query_limit` runs only that many queries, a seeded sample of them (the same
  seed picks the same queries), for quick queues on large sets.
- `runs`: the deal's stored runs (`pipeline.history`, newest `runs_limit`), their results' citations.
- `fact_sample`: every fact of the deal (superseded ones included, flagged) with each of its citations;
  such items have no query (the card says "fact sample").

A queue is written in one transaction (queue row, items in order, audit record): whole or absent
(`repo.insert_queue`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pipeline.errors import InvalidInput
from pipeline.history.records import RunFilter
from pipeline.history.repo import list_runs, load_run
from pipeline.query_sets import load_query_set
from pipeline.retrieval.citations import citation_fields, cited_snippet, fetch_episodes
from pipeline.retrieval.records import Citation, Result
from pipeline.retrieval.retrieve import retrieve
from pipeline.retrieval.setting import MAX_CANDIDATES, MAX_TOP_K
from pipeline.spotcheck.records import Queue, QueueItem, QueueSpec, clean_name
from pipeline.spotcheck.repo import insert_queue, queue_named
from pipeline.spotcheck.sampling import ItemDraft, check_request, disagreement_signals, sample_items
from pipeline.store.db import Store
from pipeline.temporal.supersession import supersession_links
from pipeline.temporal.timeline import load_facts
from pipeline.utc import now_iso

if TYPE_CHECKING:
    from pipeline.lab import Lab

REPLAY_S = 600.0  # a build sent again within this finds its queue (`build_queue(replay_within_s=...)`)

# --- collecting candidate items ---------------------------------------------------------------


async def _relatives(lab: Lab, group_id: str) -> set[str]:
    """Uuids of facts that supersede another or are superseded (recorded or inferred), or are invalidated."""
    facts = await load_facts(lab, group_id)
    related = {u for link in supersession_links(facts) for u in (link.old, link.new)}
    return related | {f.uuid for f in facts if f.superseded}


def result_drafts(result: Result, query_id: str, query: str, run_id: int | None, related: set[str]) -> list[ItemDraft]:
    """One draft per citation of the result; `related`: uuids of facts with a superseded relative."""
    ranked = result.ranked
    signals = disagreement_signals(result.citations, result.uuid in related or ranked.candidate.superseded)
    return [
        ItemDraft(
            query_id=query_id,
            query=query,
            run_id=run_id,
            fact_uuid=result.uuid,
            fact=ranked.candidate.fact,
            rank=ranked.rank,
            score=ranked.score,
            superseded=ranked.candidate.superseded,
            signals=signals,
            citation=citation,
        )
        for citation in result.citations
    ]


async def query_set_drafts(
    lab: Lab,
    group_id: str,
    top_k: int,
    candidates: int,
    reranker: str,
    query_limit: int | None = None,
    seed: int = 0,
) -> list[ItemDraft]:
    query_set = load_query_set(lab.store, group_id)
    if query_set is None:
        raise InvalidInput(f"Deal {group_id!r} has no labelled query set: pick another source.")
    if not 1 <= top_k <= MAX_TOP_K or not top_k <= candidates <= MAX_CANDIDATES:
        raise InvalidInput(f"Top-k must be 1-{MAX_TOP_K} and no more than N (N at most {MAX_CANDIDATES}).")
    if query_limit is not None and query_limit < 1:
        raise InvalidInput(f"The number of queries to run must be at least 1; got {query_limit}.")
    queries = sorted(query_set.queries, key=lambda q: q.id)
    if query_limit is not None and query_limit < len(queries):
        picked = random.Random(seed).sample(range(len(queries)), query_limit)
        queries = [queries[i] for i in sorted(picked)]
    related = await _relatives(lab, group_id)
    drafts: list[ItemDraft] = []
    for query in queries:
        run = await retrieve(lab, query.text, group_id, candidates, top_k, reranker)
        for result in run.results:
            drafts += result_drafts(result, query.id, query.text, None, related)
    return drafts


async def run_drafts(lab: Lab, group_id: str, runs_limit: int) -> list[ItemDraft]:
    summaries = list_runs(lab.store, RunFilter(group_id=group_id), limit=runs_limit)
    if not summaries:
        raise InvalidInput(f"No runs are recorded for deal {group_id!r} yet: run some queries or pick another source.")
    related = await _relatives(lab, group_id)
    drafts: list[ItemDraft] = []
    for summary in sorted(summaries, key=lambda s: s.id):
        stored = load_run(lab.store, summary.id)
        for result in stored.run.results:
            drafts += result_drafts(result, "", stored.run.query, summary.id, related)
    return drafts


async def fact_drafts(lab: Lab, group_id: str) -> list[ItemDraft]:
    facts = await load_facts(lab, group_id)
    related = {u for link in supersession_links(facts) for u in (link.old, link.new)}
    episodes = await fetch_episodes(lab.backend, group_id, (u for f in facts for u in f.episodes))
    now = now_iso()
    drafts: list[ItemDraft] = []
    for fact in facts:
        citations = [
            Citation(
                episode_uuid=u,
                snippet=cited_snippet(fact.fact, episodes[u].get("content") or ""),
                episode_valid_at=str(episodes[u].get("valid_at") or "") or None,
                relevance_score=0.0,
                retrieved_at=now,
                **citation_fields(episodes[u]),
            )
            for u in fact.episodes
            if u in episodes
        ]
        signals = disagreement_signals(citations, fact.uuid in related or fact.superseded)
        drafts += [
            ItemDraft("", "", None, fact.uuid, fact.fact, None, None, fact.superseded, signals, c) for c in citations
        ]
    return drafts


async def collect_drafts(lab: Lab, spec: QueueSpec) -> list[ItemDraft]:
    if spec.source == "query_set":
        return await query_set_drafts(
            lab, spec.group_id, spec.top_k, spec.candidates, spec.reranker, spec.query_limit, spec.seed
        )
    if spec.source == "runs":
        if not 1 <= spec.runs_limit <= 10_000:
            raise InvalidInput(f"The number of runs to read must be 1-10,000; got {spec.runs_limit}.")
        return await run_drafts(lab, spec.group_id, spec.runs_limit)
    return await fact_drafts(lab, spec.group_id)


def same_build(queue: Queue, spec: QueueSpec, created_by: str, within_s: float, now: datetime | None = None) -> bool:
    """Whether `queue` is what building `spec` by `created_by` made less than `within_s` seconds ago: the same
    source, size, seed, priority and parameters, by the same reviewer. A repeated submission of one build (a
    double click, a rerun that replays the click, a second session of the same browser) finds it."""
    now = now or datetime.now(UTC)
    try:
        age = (now - datetime.fromisoformat(queue.created_at)).total_seconds()
    except ValueError:
        return False
    return (
        0 <= age < within_s
        and (queue.source, queue.size, queue.seed, queue.priority) == (spec.source, spec.size, spec.seed, spec.priority)
        and queue.params == json.loads(spec.params_json())
        and queue.created_by.casefold() == created_by.casefold()
    )


async def build_queue(lab: Lab, spec: QueueSpec, *, replay_within_s: float | None = None) -> Queue:
    """Validate, collect, sample and store a queue; nothing is written when any step fails. With
    `replay_within_s`, a queue of that name that this same build made that recently (`same_build`) is the
    outcome, not a clash: a submission sent twice builds once and both report it (the Spot-check page's form)."""
    check_request(spec.size, spec.seed, spec.priority, spec.source)
    name = clean_name(spec.name, "queue name")
    created_by = clean_name(spec.created_by, "reviewer name", 80)
    await lab.deal(spec.group_id)

    def replayed() -> Queue | None:
        existing = queue_named(lab.store, spec.group_id, name)
        if (
            existing is not None
            and replay_within_s is not None
            and same_build(existing, spec, created_by, replay_within_s)
        ):
            return existing
        return None

    if queue_named(lab.store, spec.group_id, name) is not None:
        if (mine := replayed()) is not None:
            return mine
        raise InvalidInput(f"A queue named {name!r} already exists on deal {spec.group_id!r}: pick another name.")
    drafts = await collect_drafts(lab, spec)
    items = sample_items(drafts, spec.size, spec.seed, spec.priority)
    if not items:
        raise InvalidInput("The source has no cited results to review: pick another source.")
    try:
        return save_queue(lab.store, spec, items, name=name, created_by=created_by)
    except InvalidInput:  # the name was taken while this one sampled: by the same build sent twice, its outcome
        if (mine := replayed()) is not None:
            return mine
        raise


# --- storing -----------------------------------------------------------------------------------


def save_queue(
    store: Store, spec: QueueSpec, items: Sequence[ItemDraft], *, name: str | None = None, created_by: str | None = None
) -> Queue:
    name = name or clean_name(spec.name, "queue name")
    created_by = created_by or clean_name(spec.created_by, "reviewer name", 80)
    return insert_queue(store, spec, items, name, created_by)


def item_keys(items: Iterable[QueueItem | ItemDraft]) -> list[tuple[str, str, str, str]]:
    """(query id, query, fact uuid, episode uuid) per item: what makes two samples the same."""
    return [(i.query_id, i.query, i.fact_uuid, i.citation.episode_uuid) for i in items]


def relevance_cards(items: Sequence[QueueItem]) -> dict[int, int]:
    """Item id -> the id of the queue's first card asking relevance for the same (query, fact). Two citations of
    one result are two cards (support is a question about each citation), but relevance is a question about the
    query and the fact alone: it is asked on the first of them, and the later ones show that answer and ask
    support only. Cards without a query (fact samples) ask no relevance and are left out."""
    first: dict[tuple[str, str, str], int] = {}
    asked_on: dict[int, int] = {}
    for item in sorted(items, key=lambda i: i.position):
        if not item.query:
            continue
        asked_on[item.id] = first.setdefault((item.query_id, item.query, item.fact_uuid), item.id)
    return asked_on
