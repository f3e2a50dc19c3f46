"""Grades given on a Compare card (pipeline/spotcheck/inplace.py), on the real embedded FalkorDB and SQLite store,
on a demo deal of their own (they write queues and verdicts other tests of the demo deal count)."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from pipeline.audit import audit_log
from pipeline.comparison.judged import query_judgments, side_score
from pipeline.errors import InvalidInput
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.query_sets import load_query_set
from pipeline.retrieval.records import Result
from pipeline.retrieval.retrieve import retrieve
from pipeline.spotcheck import verdict_judgments
from pipeline.spotcheck.inplace import COMPARE_QUEUE, compare_grades, compare_item, grade_in_place
from pipeline.spotcheck.repo import list_queues, queue_items, queue_named
from pipeline.spotcheck.repo_answers import relevance_history, reviewer_relevance
from pipeline.store.db import Store

DEAL = "demo_inplace"
QUERY = "What was Halcyon's FY2025 revenue?"  # a query of the demo's labelled set
FREE = "Halcyon revenue and the auditors"  # not one


@pytest.fixture
async def deal(lab: Lab) -> str:
    """The deal with no Compare queue yet (every grade on it goes to that queue, which this drops)."""
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL)
    with lab.store.transaction() as conn:
        conn.execute("DELETE FROM spotcheck_queues WHERE group_id = ? AND name = ?", (DEAL, COMPARE_QUEUE))
    return DEAL


async def results(lab: Lab, query: str, reranker: str = "none") -> tuple[Result, ...]:
    return (await retrieve(lab, query, DEAL, 50, 10, reranker)).results


def queue_created(lab: Lab) -> list[dict]:
    return [e.details for e in audit_log(lab.store, DEAL, "spotcheck.queue_created", 10_000)]


async def test_a_grade_is_the_reviewers_answer_revised_and_kept_apart(lab: Lab, deal: str) -> None:
    labelled = load_query_set(lab.store, deal)
    assert labelled is not None
    [query_id] = [q.id for q in labelled.queries if q.text == QUERY]
    result = (await results(lab, QUERY))[0]
    audits = len(queue_created(lab))

    first = await grade_in_place(lab, deal, f"  {QUERY.upper()} ", result, "Ana", 3)  # the same query, spelled so
    queue = queue_named(lab.store, deal, COMPARE_QUEUE)
    assert queue is not None
    assert (queue.source, queue.created_by, queue.item_count, queue.size, queue.params) == (
        "query_set",
        "Ana",
        1,
        1,
        {"graded_on": "compare"},
    )
    item = first.item
    # a labelled query's grade joins that query's judgments: its id and text, not the text as typed
    assert (item.query_id, item.query, item.fact_uuid, item.rank) == (query_id, QUERY, result.uuid, 1)
    assert item.citation == result.citations[0]
    assert (first.relevance.grade, first.relevance.revision) == (3, 1)
    assert verdict_judgments(lab.store, deal)[query_id][result.uuid] == 3
    assert len(queue_created(lab)) == audits + 1

    again = await grade_in_place(lab, deal, QUERY, result, "ana", 1)  # names compare case-insensitively
    assert (again.item.id, again.relevance.id, again.relevance.revision) == (item.id, first.relevance.id, 2)
    assert [(rev, grade) for rev, grade, _note, _at in relevance_history(lab.store, again.relevance.id)] == [
        (1, 3),
        (2, 1),
    ]
    assert verdict_judgments(lab.store, deal)[query_id][result.uuid] == 1

    other = await grade_in_place(lab, deal, QUERY, result, "Bea", 3)
    assert other.item.id == item.id and other.relevance.id != first.relevance.id
    assert reviewer_relevance(lab.store, queue.id, "Ana")[item.id].grade == 1
    assert reviewer_relevance(lab.store, queue.id, "Bea")[item.id].grade == 3
    assert verdict_judgments(lab.store, deal)[query_id][result.uuid] == 1  # the lower median of 1 and 3
    assert {u: r.grade for u, r in compare_grades(lab.store, deal, QUERY.lower(), "ANA").items()} == {result.uuid: 1}
    assert compare_grades(lab.store, deal, FREE, "Ana") == {}
    assert compare_grades(lab.store, deal, QUERY, "") == {}

    # one queue, one item, whoever grades the pair and however often; the queue was made once
    assert [q.name for q in list_queues(lab.store, deal)].count(COMPARE_QUEUE) == 1
    assert [i.id for i in queue_items(lab.store, queue.id)] == [item.id]
    assert len(queue_created(lab)) == audits + 1


async def test_another_query_is_keyed_by_its_text_and_moves_the_metrics(lab: Lab, deal: str) -> None:
    assert await query_judgments(lab, deal, FREE) is None
    top = await results(lab, FREE)
    graded = await grade_in_place(lab, deal, FREE, top[1], "Ana", 3)
    assert (graded.item.query_id, graded.item.query, graded.item.position) == ("", FREE, 1)
    assert verdict_judgments(lab.store, deal)[FREE] == {top[1].uuid: 3}
    judged = await query_judgments(lab, deal, f"{FREE.upper()} ")
    assert judged is not None and judged.grades == {top[1].uuid: 3} and judged.sources == ("Analyst verdicts",)
    assert side_score(judged.grades, [r.uuid for r in top], 10).mrr == 0.5

    # a labelled query: an unjudged fact of its top 10 graded 3 is in its judgments from now on, and the score moves
    labelled_top = await results(lab, QUERY)
    before = await query_judgments(lab, deal, QUERY)
    assert before is not None
    unjudged = next(r for r in labelled_top if r.uuid not in before.grades)
    ranking = [r.uuid for r in labelled_top]
    await grade_in_place(lab, deal, QUERY, unjudged, "Ana", 3)
    after = await query_judgments(lab, deal, QUERY)
    assert after is not None and after.grades == {**before.grades, unjudged.uuid: 3}
    assert after.sources == ("Labelled query set", "Analyst verdicts")
    assert side_score(after.grades, ranking, 10).ndcg != side_score(before.grades, ranking, 10).ndcg
    assert queue_named(lab.store, deal, COMPARE_QUEUE).item_count == 2  # type: ignore[union-attr]


async def test_bad_input_is_one_line_and_writes_nothing(lab: Lab, deal: str) -> None:
    result = (await results(lab, QUERY))[0]
    cases = [
        ("", 2, QUERY, result, "reviewer name is empty"),
        ("judge:gpt-4o", 2, QUERY, result, "LLM judge"),
        ("Ana", 4, QUERY, result, "Unknown relevance grade"),
        ("Ana", True, QUERY, result, "Unknown relevance grade"),
        ("Ana", 2, "   ", result, "The query is empty"),
        ("Ana", 2, QUERY, replace(result, citations=()), "no citation"),
    ]
    for reviewer, grade, query, graded, says in cases:
        with pytest.raises(InvalidInput, match=says) as refused:
            await grade_in_place(lab, deal, query, graded, reviewer, grade)  # type: ignore[arg-type]
        assert "\n" not in str(refused.value)
    assert queue_named(lab.store, deal, COMPARE_QUEUE) is None


async def test_a_queue_of_that_name_built_on_spot_check_is_left_alone(lab: Lab, deal: str) -> None:
    from pipeline.spotcheck.queue import build_queue
    from pipeline.spotcheck.records import QueueSpec

    spec = QueueSpec(COMPARE_QUEUE, deal, "fact_sample", 2, 1, "random", "Ana")
    built = await build_queue(lab, spec)
    try:
        with pytest.raises(InvalidInput, match="not made here"):
            await grade_in_place(lab, deal, QUERY, (await results(lab, QUERY))[0], "Ana", 2)
        assert queue_named(lab.store, deal, COMPARE_QUEUE).item_count == 2  # type: ignore[union-attr]
    finally:
        with lab.store.transaction() as conn:
            conn.execute("DELETE FROM spotcheck_queues WHERE id = ?", (built.id,))


async def test_sessions_grading_the_same_pair_at_once_share_one_item(lab: Lab, deal: str) -> None:
    result = (await results(lab, QUERY, "local"))[2]
    sessions = 6
    start = threading.Barrier(sessions)
    items: list[int] = []
    failures: list[BaseException] = []

    def session(n: int) -> None:
        store = Store(lab.store.path)  # a connection of its own, as another process would have
        try:
            start.wait()
            items.append(compare_item(store, deal, QUERY, result, f"Reviewer {n}").id)
        except BaseException as exc:  # reported below, in the test's thread
            failures.append(exc)
        finally:
            store.close()

    threads = [threading.Thread(target=session, args=(n,)) for n in range(sessions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    queue = queue_named(lab.store, deal, COMPARE_QUEUE)
    assert queue is not None and queue.item_count == 1 and queue.size == 1
    assert len(set(items)) == 1 and len(items) == sessions
    assert [q.name for q in list_queues(lab.store, deal)].count(COMPARE_QUEUE) == 1
