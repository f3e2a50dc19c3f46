"""Analysts' spot-check relevance grades become a judgments source the evaluation can score with; their
support verdicts never do.

The test grades its own copy of the demo deal: a fact cited under the same query pools every grade the deal's
queues hold, so grades other tests left on the session's demo deal would move the medians it checks."""

import pytest

from pipeline.evaluation.judgments import judgment_sources, load_eval_set
from pipeline.ingest.demo.seed import seed_demo
from pipeline.lab import Lab
from pipeline.spotcheck import verdict_judgments
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.verdicts import adjudicate, record_relevance, record_verdict

DEAL = "demo_verdict_judgments"


@pytest.fixture
async def deal(lab: Lab) -> str:
    await seed_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, group_id=DEAL)
    return DEAL


async def test_relevance_grades_are_the_judgments_of_the_labelled_queries(lab: Lab, deal: str) -> None:
    assert judgment_sources()["verdicts"] == "Analyst verdicts"
    queue = await build_queue(
        lab,
        QueueSpec(
            name="judgments from verdicts",
            group_id=deal,
            source="query_set",
            size=3,
            seed=3,
            priority="random",
            created_by="Ana",
            top_k=2,
            query_limit=2,
            reranker="none",
        ),
    )
    items = queue_items(lab.store, queue.id)
    assert len({(i.query_id, i.fact_uuid) for i in items}) == 3
    before = verdict_judgments(lab.store, deal)
    for item in items:  # support verdicts alone: no judgment, however well supported
        record_verdict(lab.store, item.id, "Ana", "supported")
    assert verdict_judgments(lab.store, deal) == before

    for item, ana, ben in zip(items, [3, 2, 0], [1, 2, 3], strict=True):
        record_relevance(lab.store, item.id, "Ana", ana)
        record_relevance(lab.store, item.id, "Ben", ben)
    graded = await load_eval_set(lab, deal, "verdicts")
    assert graded.qrels == verdict_judgments(lab.store, deal)
    # several reviewers: the lower median (3 and 1 -> 1; 2 and 2 -> 2; 0 and 3 -> 0) ...
    assert [graded.qrels[i.query_id][i.fact_uuid] for i in items] == [1, 2, 0]
    adjudicate(lab.store, items[2].id, "relevance", 3, "Cleo", admin=True)  # ... or the adjudicated grade if any
    assert verdict_judgments(lab.store, deal)[items[2].query_id][items[2].fact_uuid] == 3

    labelled = {q.id: q for q in (await load_eval_set(lab, deal, "labelled")).queries}
    for item in items:
        query = next(q for q in graded.queries if q.id == item.query_id)
        assert (query.text, query.type) == (labelled[item.query_id].text, labelled[item.query_id].type)
    assert {q.id for q in graded.scorable} >= {items[1].query_id}  # a relevant grade makes it scorable
