"""Grading a Compare card in place, through AppTest: the grade is the reviewer's relevance answer on the deal's
"Graded on Compare" queue, revised by a second click, kept apart from another reviewer's, refused without a
name, and scored on the next run. On a demo deal of its own: the grades change that deal's judgments and queues,
which tests of the demo deal count."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.errors import AppTestError

from dashboard.compare.grading import NO_NAME
from pipeline.comparison.judged import query_judgments, side_score
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.query_sets import load_query_set
from pipeline.retrieval.retrieve import retrieve
from pipeline.spotcheck import verdict_judgments
from pipeline.spotcheck.inplace import COMPARE_QUEUE
from pipeline.spotcheck.repo import list_queues, queue_items, queue_named
from pipeline.spotcheck.repo_answers import relevance_history, reviewer_relevance
from tests.app.conftest import APP, no_errors, open_page

PAGE = "app_pages/compare.py"
DEAL = "demo_compare_grading"
QUERY = "What was Halcyon's FY2025 revenue?"  # in the demo's labelled set
FREE = "Who audited Halcyon and what did they restate?"  # not in it


@pytest.fixture
async def deal(lab: Lab) -> str:
    """The deal, seeded once, without a Compare queue (this drops the one an earlier test left)."""
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL)
    with lab.store.transaction() as conn:
        conn.execute("DELETE FROM spotcheck_queues WHERE group_id = ? AND name = ?", (DEAL, COMPARE_QUEUE))
    return DEAL


def compare(app: AppTest, query: str, reviewer: str = "") -> AppTest:
    open_page(app, PAGE, DEAL)
    if reviewer:
        app.text_input(key="spotcheck.reviewer").input(reviewer)
    app.text_input(key="compare.q").input(query).run()
    no_errors(app)
    return app


def metric(app: AppTest, label: str) -> str:
    return next(m.value for m in app.metric if m.label == label)


def captions(app: AppTest, text: str) -> list[str]:
    return [c.value for c in app.caption if text in c.value]


def kind(app: AppTest, key: str) -> str:
    """ "primary" for the grade on record, else "secondary"."""
    return app.button(key=key).proto.type


def recorded(app: AppTest) -> list[str]:
    return [s.value for s in app.success if s.value.startswith("Recorded relevance")]


async def test_grade_a_card_revise_it_and_see_the_metrics_move(app: AppTest, lab: Lab, deal: str) -> None:
    labelled = load_query_set(lab.store, deal)
    assert labelled is not None
    [query_id] = [q.id for q in labelled.queries if q.text == QUERY]
    a_run, b_run = [await retrieve(lab, QUERY, deal, 50, 10, r) for r in ("none", "local")]
    before = await query_judgments(lab, deal, QUERY)
    assert before is not None and before.scorable
    cards = [r.uuid for r in (*a_run.results, *b_run.results)]
    fact = next(u for u in cards if u not in before.grades)  # a fact of A's top 10 nobody judged
    a_ranking = [r.uuid for r in a_run.results]

    compare(app, QUERY)
    # no name: the buttons are off, with one line saying why; a click writes nothing
    assert captions(app, NO_NAME) and len(captions(app, NO_NAME)) == 1
    button = app.button(key=f"compare.a.{fact}.grade.3")
    assert button.disabled and button.label == "3 · Answers it"
    with pytest.raises(AppTestError, match="disabled"):  # AppTest clicks only what a browser user can
        button.click()
    assert queue_named(lab.store, deal, COMPARE_QUEUE) is None
    assert len(captions(app, "unjudged")) == sum(u not in before.grades for u in cards)
    assert metric(app, "A: nDCG@10") == f"{side_score(before.grades, a_ranking, 10).ndcg:.2f}"

    app.text_input(key="spotcheck.reviewer").input("Ana Compare").run()
    assert not captions(app, NO_NAME) and captions(app, "**3** answers it: answers the query on its own")
    assert not app.button(key=f"compare.a.{fact}.grade.3").disabled
    app.button(key=f"compare.a.{fact}.grade.3").click().run()
    no_errors(app)
    assert recorded(app) and "**3 · answers it**" in recorded(app)[0]
    queue = queue_named(lab.store, deal, COMPARE_QUEUE)
    assert queue is not None and (queue.created_by, queue.item_count) == ("Ana Compare", 1)
    [item] = queue_items(lab.store, queue.id)
    assert (item.query_id, item.query, item.fact_uuid) == (query_id, QUERY, fact)  # joins the labelled query
    assert verdict_judgments(lab.store, deal)[query_id] == {fact: 3}
    # the next run scores both sides with it: the fact is judged now, and A's nDCG moved
    after = await query_judgments(lab, deal, QUERY)
    assert after is not None and after.grades == {**before.grades, fact: 3}
    ndcg = side_score(after.grades, a_ranking, 10).ndcg
    assert ndcg != side_score(before.grades, a_ranking, 10).ndcg
    assert metric(app, "A: nDCG@10") == f"{ndcg:.2f}"
    assert len(captions(app, "unjudged")) == sum(u not in after.grades for u in cards)
    assert kind(app, f"compare.a.{fact}.grade.3") == "primary"
    assert captions(app, "Your grade: **3 · answers it** (revision 1)")

    # grading it again (from side B when B shows it too) revises the same answer
    side = "b" if fact in [r.uuid for r in b_run.results] else "a"
    app.button(key=f"compare.{side}.{fact}.grade.1").click().run()
    no_errors(app)
    assert "(revision 2)" in recorded(app)[0]
    assert [i.id for i in queue_items(lab.store, queue.id)] == [item.id]
    mine = reviewer_relevance(lab.store, queue.id, "Ana Compare")[item.id]
    assert [(r, g) for r, g, _n, _at in relevance_history(lab.store, mine.id)] == [(1, 3), (2, 1)]
    assert verdict_judgments(lab.store, deal)[query_id] == {fact: 1}
    assert kind(app, f"compare.a.{fact}.grade.1") == "primary"
    assert kind(app, f"compare.a.{fact}.grade.3") == "secondary"


async def test_a_second_reviewer_from_another_session_grades_the_same_item(app: AppTest, lab: Lab, deal: str) -> None:
    assert await query_judgments(lab, deal, FREE) is None
    top = (await retrieve(lab, FREE, deal, 50, 10, "none")).results
    fact = top[0].uuid

    compare(app, FREE, "Ana Compare")
    assert any("Not judged" in c for c in captions(app, "Not judged"))
    app.button(key=f"compare.a.{fact}.grade.2").click().run()
    no_errors(app)
    assert not captions(app, "Not judged")  # judged now, by the analyst's grade
    assert metric(app, "A: MRR@10") == "1.00"

    # another session: the name typed on Spot-check is the one Compare knows
    other = AppTest.from_file(APP, default_timeout=60)
    open_page(other, "app_pages/spotcheck.py", DEAL)
    other.text_input(key="spotcheck.reviewer").input("Bea Compare").run()
    other.switch_page(PAGE)
    other.run()
    assert other.text_input(key="spotcheck.reviewer").value == "Bea Compare"
    other.text_input(key="compare.q").input(FREE.upper()).run()  # the same query, typed otherwise
    no_errors(other)
    assert kind(other, f"compare.a.{fact}.grade.2") == "secondary"  # Ana's grade is hers
    other.button(key=f"compare.a.{fact}.grade.0").click().run()
    no_errors(other)
    assert recorded(other) and "(revision" not in recorded(other)[0]

    queues = [q for q in list_queues(lab.store, deal) if q.name == COMPARE_QUEUE]
    assert len(queues) == 1 and queues[0].created_by == "Ana Compare"
    [item] = queue_items(lab.store, queues[0].id)  # one item for the pair, two answers on it
    assert (item.query_id, item.query, item.fact_uuid) == ("", FREE, fact)
    grades = {
        name: reviewer_relevance(lab.store, item.queue_id, name)[item.id].grade
        for name in ("Ana Compare", "Bea Compare")
    }
    assert grades == {"Ana Compare": 2, "Bea Compare": 0}
    assert verdict_judgments(lab.store, deal)[FREE] == {fact: 0}  # the lower median of 2 and 0
    app.run()  # Ana's page keeps her own grade lit
    assert kind(app, f"compare.a.{fact}.grade.2") == "primary"
