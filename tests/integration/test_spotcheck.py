"""Spot-check queues and verdicts on the real embedded FalkorDB and SQLite store (the demo deal is only read)."""

from __future__ import annotations

import csv
import io
import itertools
from dataclasses import replace

import pytest

from pipeline.errors import InvalidInput
from pipeline.history.repo import save_run
from pipeline.lab import Lab
from pipeline.query_sets import load_query_set
from pipeline.retrieval.retrieve import retrieve
from pipeline.spotcheck import verdict_judgments
from pipeline.spotcheck.queue import build_queue, collect_drafts, item_keys, save_queue
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import get_queue, list_queues, queue_items
from pipeline.spotcheck.repo_answers import progress, resume_position, reviewer_verdicts, verdict_history, verdict_rows
from pipeline.spotcheck.sampling import sample_items
from pipeline.spotcheck.verdicts import (
    CSV_COLUMNS,
    adjudicate,
    disagreements,
    export_csv,
    record_relevance,
    record_verdict,
    summarise,
)
from pipeline.store.db import Store

_names = itertools.count()


def spec(group_id: str, **kw: object) -> QueueSpec:
    base = QueueSpec(
        name=f"integration queue {next(_names)}",
        group_id=group_id,
        source="fact_sample",
        size=12,
        seed=7,
        priority="random",
        created_by="Ana",
    )
    return replace(base, **kw)  # type: ignore[arg-type]


async def test_same_seed_same_sample_and_a_different_seed_a_different_one(lab: Lab, demo: str) -> None:
    first = await build_queue(lab, spec(demo))
    again = await build_queue(lab, spec(demo))
    other = await build_queue(lab, spec(demo, seed=8))
    a, b, c = (item_keys(queue_items(lab.store, q.id)) for q in (first, again, other))
    assert len(a) == 12 and len(set(a)) == 12
    assert a == b  # same items, same order
    assert a != c
    assert all(query == "" for _, query, _, _ in a)  # fact samples have no query
    assert first.source == "fact_sample" and first.seed == 7 and first.created_by == "Ana" and first.item_count == 12


async def test_a_query_set_queue_holds_top_k_results_with_citations(lab: Lab, demo: str) -> None:
    queue = await build_queue(
        lab, spec(demo, source="query_set", size=6, priority="lowest_score", top_k=2, query_limit=4, reranker="local")
    )
    items = queue_items(lab.store, queue.id)
    labelled = {q.id: q.text for q in load_query_set(lab.store, demo).queries}  # type: ignore[union-attr]
    assert len(items) == 6 and [i.position for i in items] == list(range(1, 7))
    assert all(i.query_id in labelled and i.query == labelled[i.query_id] for i in items)
    assert len({i.query_id for i in items}) <= 4  # a sample of four queries
    assert all(i.rank in (1, 2) and i.score is not None for i in items)
    scores = [i.score for i in items]
    assert scores == sorted(scores)  # lowest reranker score first
    run = await retrieve(lab, items[0].query, demo, 50, 2, "local")
    by_uuid = {r.uuid: r for r in run.results}
    assert items[0].fact_uuid in by_uuid  # the item is one of that query's top-k results ...
    assert items[0].citation.episode_uuid in {c.episode_uuid for c in by_uuid[items[0].fact_uuid].citations}
    assert queue.params == {"top_k": 2, "candidates": 50, "reranker": "local", "query_limit": 4}


async def test_past_runs_are_a_source(lab: Lab, demo: str) -> None:
    run = await retrieve(lab, "Who is Halcyon's CFO? (spot-check runs source)", demo, 20, 3, "none")
    run_id = save_run(lab.store, run, "cli")
    queue = await build_queue(lab, spec(demo, source="runs", size=500, runs_limit=10_000))
    mine = [i for i in queue_items(lab.store, queue.id) if i.run_id == run_id]
    expected = {(r.uuid, c.episode_uuid) for r in run.results for c in r.citations}
    assert {(i.fact_uuid, i.citation.episode_uuid) for i in mine} == expected
    assert all(i.query == run.query and i.rank in (1, 2, 3) for i in mine)


async def test_disagreement_priority_puts_disagreeing_facts_first(lab: Lab, demo: str) -> None:
    queue = await build_queue(lab, spec(demo, size=30, priority="disagreement"))
    items = queue_items(lab.store, queue.id)
    assert all(i.signals for i in items[:20])  # the demo deal has well over 30 such items
    assert any("mixed_channels" in i.signals for i in items)
    assert any("superseded_relative" in i.signals for i in items)


async def test_bad_requests_write_nothing(lab: Lab, demo: str) -> None:
    before = len(list_queues(lab.store, demo))
    taken = await build_queue(lab, spec(demo, size=2))
    with pytest.raises(InvalidInput, match="already exists"):
        await build_queue(lab, spec(demo, name=taken.name))
    with pytest.raises(InvalidInput, match="no reranker scores"):
        await build_queue(lab, spec(demo, priority="lowest_score"))
    with pytest.raises(InvalidInput, match="reviewer name is empty"):
        await build_queue(lab, spec(demo, created_by="  "))
    assert len(list_queues(lab.store, demo)) == before + 1
    item = queue_items(lab.store, taken.id)[0]
    for reviewer, verdict, message in (("", "supported", "reviewer name"), ("Ana", "maybe", "Unknown verdict")):
        with pytest.raises(InvalidInput, match=message):
            record_verdict(lab.store, item.id, reviewer, verdict)
    with pytest.raises(InvalidInput, match="No spot-check item"):
        record_verdict(lab.store, 10**9, "Ana", "supported")
    assert reviewer_verdicts(lab.store, taken.id, "Ana") == {}


async def test_verdicts_survive_a_restart_and_two_reviewers_keep_theirs(lab: Lab, demo: str) -> None:
    queue = await build_queue(lab, spec(demo, size=3))
    first = queue_items(lab.store, queue.id)[0]
    record_verdict(lab.store, first.id, "Ana", "supported", "page 3 says so")
    record_verdict(lab.store, first.id, "Ben", "wrong_source")
    again = record_verdict(lab.store, first.id, "ana", "partially_supported", "only half")  # same reviewer, any case

    reopened = Store(lab.store.path)  # a new process would see exactly this
    ana = reviewer_verdicts(reopened, queue.id, "Ana")[first.id]
    ben = reviewer_verdicts(reopened, queue.id, "Ben")[first.id]
    assert (ana.verdict, ana.note, ana.revision, ana.reviewer) == ("partially_supported", "only half", 2, "Ana")
    assert ana.updated_at >= ana.created_at and ana.id == again.id
    assert (ben.verdict, ben.revision) == ("wrong_source", 1)
    history = verdict_history(reopened, ana.id)
    assert [(rev, verdict, note) for rev, verdict, note, _ in history] == [
        (1, "supported", "page 3 says so"),
        (2, "partially_supported", "only half"),
    ]
    rows = verdict_rows(reopened, demo, queue.id)
    assert sorted((r.reviewer, r.support) for r in rows) == [("Ana", "partially_supported"), ("Ben", "wrong_source")]
    [split] = disagreements(rows)
    assert split.position == 1 and {r for r, _, _, _ in split.answers} == {"Ana", "Ben"}


async def test_resuming_continues_at_the_first_item_without_a_verdict(lab: Lab, demo: str) -> None:
    queue = await build_queue(lab, spec(demo, size=4))
    items = queue_items(lab.store, queue.id)
    assert resume_position(lab.store, queue.id, "Cleo") == 1
    record_verdict(lab.store, items[0].id, "Cleo", "supported")
    record_verdict(lab.store, items[2].id, "Cleo", "not_supported")
    assert resume_position(Store(lab.store.path), queue.id, "Cleo") == 2
    assert progress(lab.store, queue.id, "Cleo") == progress(lab.store, queue.id, "cleo")
    assert (progress(lab.store, queue.id, "Cleo").done, progress(lab.store, queue.id, "Cleo").total) == (2, 4)
    assert resume_position(lab.store, queue.id, "Dev") == 1  # another reviewer starts at the top
    record_verdict(lab.store, items[1].id, "Cleo", "supported")
    assert resume_position(lab.store, queue.id, "Cleo") == 4
    record_verdict(lab.store, items[3].id, "Cleo", "supported")
    assert resume_position(lab.store, queue.id, "Cleo") is None


async def test_export_summary_and_judgments(lab: Lab, demo: str) -> None:
    """On a queue filed under its own group id, so other tests' verdicts on the demo deal do not count."""
    group = "spotcheck_judgments"
    drafts = await collect_drafts(lab, spec(demo, source="query_set", top_k=2, query_limit=2, reranker="none"))
    query_items = sample_items(drafts, 3, 1, "random")
    fact_items = sample_items(await collect_drafts(lab, spec(demo)), 1, 1, "random")
    queue = save_queue(lab.store, spec(group, source="query_set", size=4), [*query_items, *fact_items])
    assert get_queue(lab.store, queue.id).item_count == 4
    items = queue_items(lab.store, queue.id)
    record_verdict(lab.store, items[0].id, "Ana", "supported")
    record_relevance(lab.store, items[0].id, "Ana", 3, "answers it outright")
    record_verdict(lab.store, items[0].id, "Ben", "partially_supported")
    record_relevance(lab.store, items[0].id, "Ben", 1)  # two reviewers 3 and 1: the lower median, 1
    record_verdict(lab.store, items[1].id, "Ana", "wrong_source", 'said "no", really')  # support only
    record_relevance(lab.store, items[2].id, "Ana", 2)  # relevance only
    record_verdict(lab.store, items[3].id, "Ana", "supported")  # fact sample: no query, no relevance
    with pytest.raises(InvalidInput, match="only the support question"):
        record_relevance(lab.store, items[3].id, "Ana", 3)

    rows = verdict_rows(lab.store, group)
    parsed = list(csv.DictReader(io.StringIO(export_csv(rows))))
    assert len(parsed) == 5 == len(rows)  # one row per (item, reviewer), both answers as columns
    assert tuple(parsed[0]) == CSV_COLUMNS
    assert [(p["reviewer"], p["relevance"], p["support"]) for p in parsed] == [
        ("Ana", "3", "supported"),
        ("Ben", "1", "partially_supported"),
        ("Ana", "", "wrong_source"),
        ("Ana", "2", ""),
        ("Ana", "", "supported"),
    ]
    assert {p["note"] for p in parsed} >= {'said "no", really', "answers it outright"}

    summary = summarise(rows)
    assert (summary.rows, summary.items_reviewed, summary.reviewers) == (5, 4, 2)
    assert summary.overall.verdicts == 4 and summary.overall.supported_rate == pytest.approx(2 / 4)
    assert sum(r.verdicts for r in summary.by_channel) == 4 == sum(r.verdicts for r in summary.by_document)
    assert summary.relevance.counts == {0: 0, 1: 1, 2: 1, 3: 1} and summary.relevance.relevant.hits == 2

    def key(i: int) -> str:
        return items[i].query_id

    expected: dict[str, dict[str, int]] = {}
    for i, grade in ((0, 1), (2, 2)):
        facts = expected.setdefault(key(i), {})
        facts[items[i].fact_uuid] = grade
    if (key(0), items[0].fact_uuid) == (key(2), items[2].fact_uuid):  # one fact of one query: grades pooled
        expected = {key(0): {items[0].fact_uuid: 2}}  # the lower median of 3, 1, 2
    assert verdict_judgments(lab.store, group) == expected
    assert all(i.query_id for i in items[:3]) and items[3].query == ""


async def test_two_questions_agreement_and_adjudication(lab: Lab, demo: str) -> None:
    """Two reviewers answer both questions; the disagreements are adjudicated (audited) and then count."""
    group = "spotcheck_adjudication"
    drafts = await collect_drafts(lab, spec(demo, source="query_set", top_k=3, query_limit=3, reranker="none"))
    queue = save_queue(lab.store, spec(group, source="query_set", size=4), sample_items(drafts, 4, 2, "random"))
    items = queue_items(lab.store, queue.id)
    answers = {  # item -> (Ana's grade, Ben's grade, Ana's verdict, Ben's verdict)
        0: (3, 3, "supported", "supported"),
        1: (0, 2, "supported", "not_supported"),  # both questions split
        2: (2, 3, "partially_supported", "partially_supported"),  # one grade apart: no dispute
        3: (1, 1, "not_supported", "wrong_source"),  # support split only
    }
    for i, (ga, gb, va, vb) in answers.items():
        record_relevance(lab.store, items[i].id, "Ana", ga)
        record_relevance(lab.store, items[i].id, "Ben", gb)
        record_verdict(lab.store, items[i].id, "Ana", va)
        record_verdict(lab.store, items[i].id, "Ben", vb)
    assert progress(lab.store, queue.id, "Ben").done == 4

    rows = verdict_rows(lab.store, group)
    summary = summarise(rows)
    assert summary.relevance_agreement.statistic == "Cohen's kappa (quadratic weights)"
    assert summary.relevance_agreement.items == 4 and summary.relevance_agreement.value is not None
    assert summary.support_agreement.statistic == "Cohen's kappa" and summary.support_agreement.items == 4
    split = disagreements(rows)
    assert [(d.position, d.relevance_split, d.support_split, d.settled) for d in split] == [
        (2, True, True, False),
        (4, False, True, False),
    ]

    adjudicate(lab.store, items[1].id, "relevance", 1, "Cleo", "the fact is about the prior year", admin=True)
    adjudicate(lab.store, items[1].id, "support", "partially_supported", "Cleo", admin=True)
    adjudicate(lab.store, items[3].id, "support", "wrong_source", "Cleo", admin=True)
    with pytest.raises(InvalidInput, match="Unknown relevance grade"):
        adjudicate(lab.store, items[3].id, "relevance", 7, "Cleo", admin=True)
    audited = lab.store.query(
        "SELECT actor, target, details FROM audit_log WHERE action = 'spotcheck.adjudicated' AND group_id = ?", (group,)
    )
    assert [(a["actor"], a["target"]) for a in audited] == [
        ("Cleo", f"item 2 of queue #{queue.id}"),
        ("Cleo", f"item 2 of queue #{queue.id}"),
        ("Cleo", f"item 4 of queue #{queue.id}"),
    ]
    assert '"answer": "1"' in audited[0]["details"] and '"previous": null' in audited[0]["details"]

    rows = verdict_rows(lab.store, group)
    assert all(d.settled for d in disagreements(rows))
    after = summarise(rows)
    # support counted: item 1 two "supported", item 2 one adjudicated "partially", item 3 two "partially",
    # item 4 one adjudicated "wrong source": 2 supported of 6
    assert (after.overall.verdicts, after.overall.counts["supported"], after.adjudicated) == (6, 2, 2)
    assert summary.relevance_agreement == after.relevance_agreement  # agreement is the reviewers' own answers
    assert len({(i.query_id, i.fact_uuid) for i in items}) == 4  # four (query, fact) pairs: nothing pooled
    judged = verdict_judgments(lab.store, group)
    assert judged[items[1].query_id][items[1].fact_uuid] == 1  # adjudicated, where the reviewers said 0 and 2
    assert judged[items[2].query_id][items[2].fact_uuid] == 2  # not disputed: the lower median of 2 and 3
