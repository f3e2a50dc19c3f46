"""Building judging pools and drawing calibration samples.

A pool runs every query of a stored set under each setting (one `rank()` per query, the same ranking path
as everywhere) and keeps each (query, fact) of their top k once, in order of its best rank, with its first
citation. Pairs the set already judges, or that analysts have graded, are left out and counted. A calibration
sample is a seeded sample of the pairs an LLM judge graded in a pool and no analyst has: analysts grade them
to measure the judge. Nothing is written unless the whole pool is.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pipeline.errors import InvalidInput
from pipeline.pools.records import Pool, PoolSpec
from pipeline.pools.repo import insert_pool, pool_of
from pipeline.query_sets import list_query_sets, load_query_set
from pipeline.rerankers import has_key, reranker_choices
from pipeline.retrieval.records import Citation, Result
from pipeline.retrieval.retrieve import rank
from pipeline.retrieval.setting import Setting
from pipeline.spotcheck.records import QueueItem, QueueSpec, clean_name
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.sampling import ItemDraft
from pipeline.spotcheck.verdicts import clean_reviewer, verdict_judgments
from pipeline.utc import now_iso

if TYPE_CHECKING:
    from pipeline.lab import Lab

MAX_SETTINGS = 64
MAX_PAIRS = 20_000  # a pool is graded by people: larger ones are refused, with the figure, before anything runs


def _no_citation() -> Citation:
    return Citation("", "", "", None, None, "", 0.0, "", "", "", None, 0.0, now_iso())


def pool_pairs(query_id: str, query: str, runs: Sequence[Sequence[Result]]) -> list[ItemDraft]:
    """One draft per fact in any of the runs' results, by its best rank (the first run's on a tie)."""
    best: dict[str, tuple[int, int, Result]] = {}
    for order, results in enumerate(runs):
        for result in results:
            seen = best.get(result.uuid)
            if seen is None or result.ranked.rank < seen[0]:
                best[result.uuid] = (result.ranked.rank, order, result)
    return [
        ItemDraft(
            query_id=query_id,
            query=query,
            run_id=None,
            fact_uuid=uuid,
            fact=result.ranked.candidate.fact,
            rank=rank_,
            score=None,  # scores of different settings are not comparable
            superseded=result.ranked.candidate.superseded,
            signals=(),
            citation=result.citations[0] if result.citations else _no_citation(),
        )
        for uuid, (rank_, _, result) in sorted(best.items(), key=lambda kv: kv[1][:2])
    ]


def _settings(settings: Sequence[Setting], lab: Lab) -> tuple[Setting, ...]:
    """The distinct settings; one whose reranker cannot run here (no API key) is refused before anything runs:
    its pool would hold the first stage's order under the reranker's name."""
    unique = tuple(dict.fromkeys(s.validate() for s in settings))
    if not 1 <= len(unique) <= MAX_SETTINGS:
        raise InvalidInput(f"A pool needs 1 to {MAX_SETTINGS} settings; got {len(unique)}.")
    choices = {c.name: c for c in reranker_choices(lab.settings)}
    for s in unique:
        if not has_key(s.reranker, lab.settings):
            raise InvalidInput(f"Setting {s.text!r} cannot be pooled here: {choices[s.reranker].note}.")
    return unique


async def build_pool(lab: Lab, spec: PoolSpec) -> Pool:
    name = clean_name(spec.name, "pool name")
    created_by = clean_reviewer(spec.created_by)
    settings = _settings(spec.settings, lab)
    await lab.deal(spec.group_id)
    query_set = load_query_set(lab.store, spec.group_id, spec.set_name)
    if query_set is None:
        names = ", ".join(repr(s.name) for s in list_query_sets(lab.store, spec.group_id)) or "none"
        what = f"no query set named {spec.set_name!r}" if spec.set_name else "no query set"
        raise InvalidInput(
            f"Deal {spec.group_id!r} has {what} (its sets: {names}); import a query log with "
            "`python -m pipeline import-queries`."
        )
    most = len(query_set.queries) * sum(s.top_k for s in settings)
    if most > MAX_PAIRS:
        raise InvalidInput(
            f"That pool could hold up to {most:,} pairs ({len(query_set.queries)} queries x the settings' top k); "
            f"the limit is {MAX_PAIRS:,}: pool fewer settings, smaller k or a sample of the queries."
        )
    analysts = verdict_judgments(lab.store, spec.group_id, "humans")
    drafts: list[ItemDraft] = []
    skipped = 0
    for query in query_set.queries:
        runs = await rank(lab, query.text, spec.group_id, settings)
        for setting, run in zip(settings, runs, strict=True):
            if run.fallback_reason:  # a reranker that failed mid-way: its top k would be the first stage's
                raise InvalidInput(
                    f"Setting {setting.text!r} fell back to first-stage order on query {query.id!r} "
                    f"({run.fallback_reason}); nothing was written. Pool it when its reranker answers."
                )
        judged = {**analysts.get(query.id, {}), **query_set.judged_uuids(query.id)}
        for draft in pool_pairs(query.id, query.text, [run.results for run in runs]):
            if draft.fact_uuid in judged:
                skipped += 1
            else:
                drafts.append(draft)
    if not drafts:
        raise InvalidInput(
            f"Nothing to judge: the settings' top k hold {skipped} pairs, all judged already."
            if skipped
            else "Nothing to judge: the settings retrieved no facts for the set's queries."
        )
    queue = _queue_spec(name, spec.group_id, len(drafts), created_by, max(s.top_k for s in settings))
    return insert_pool(
        lab.store, queue, drafts, kind="pool", set_name=query_set.name, settings=settings, skipped=skipped
    )


def _queue_spec(name: str, group_id: str, size: int, created_by: str, top_k: int, seed: int = 0) -> QueueSpec:
    return QueueSpec(name, group_id, "query_set", size, seed, "random", created_by, top_k=top_k)


def _draft(item: QueueItem) -> ItemDraft:
    return ItemDraft(
        item.query_id, item.query, None, item.fact_uuid, item.fact, item.rank, None, item.superseded, (), item.citation
    )


def draw_calibration(
    lab: Lab, group_id: str, pool_id: int, size: int, seed: int, created_by: str, name: str = ""
) -> Pool:
    """A seeded sample of `size` pairs the LLM judge graded in the pool and no analyst has, for analysts."""
    pool = pool_of(lab.store, pool_id)
    if pool is None or pool.kind != "pool" or pool.group_id != group_id:
        raise InvalidInput(f"Deal {group_id!r} has no judging pool #{pool_id}.")
    if not 1 <= size <= MAX_PAIRS:
        raise InvalidInput(f"The calibration sample size must be 1 to {MAX_PAIRS:,}; got {size}.")
    created_by = clean_reviewer(created_by)
    judge = verdict_judgments(lab.store, pool.group_id, "judge")
    analysts = verdict_judgments(lab.store, pool.group_id, "humans")

    def key(item: QueueItem) -> str:
        return item.query_id or item.query

    graded = [
        i
        for i in queue_items(lab.store, pool_id)
        if i.fact_uuid in judge.get(key(i), {}) and i.fact_uuid not in analysts.get(key(i), {})
    ]
    if not graded:
        raise InvalidInput(
            f"Pool #{pool_id} has no pair the LLM judge graded and no analyst has: "
            "run `python -m pipeline judge` on it first."
        )
    picked = sorted(random.Random(seed).sample(range(len(graded)), min(size, len(graded))))
    drafts = [_draft(graded[i]) for i in picked]
    name = clean_name(name or f"calibration of pool #{pool_id} · {len(drafts)} @ seed {seed}", "pool name")
    queue = _queue_spec(name, pool.group_id, len(drafts), created_by, 0, seed)
    return insert_pool(lab.store, queue, drafts, kind="calibration", set_name=pool.set_name, of_queue=pool_id)
