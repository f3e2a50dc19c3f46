"""Analysts' spot-check verdicts become a judgments source the evaluation can score with."""

from pipeline.evaluation.judgments import judgment_sources, load_eval_set
from pipeline.lab import Lab
from pipeline.spotcheck import verdict_judgments
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import queue_items
from pipeline.spotcheck.verdicts import record_verdict


async def test_verdicts_are_graded_judgments_of_the_labelled_queries(lab: Lab, demo: str) -> None:
    assert judgment_sources()["verdicts"] == "Analyst verdicts"
    queue = await build_queue(
        lab,
        QueueSpec(
            name="judgments from verdicts",
            group_id=demo,
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
    verdicts = ["supported", "partially_supported", "not_supported"]
    for item, verdict in zip(items, verdicts, strict=True):
        record_verdict(lab.store, item.id, "Ana", verdict)

    graded = await load_eval_set(lab, demo, "verdicts")
    assert graded.qrels == verdict_judgments(lab.store, demo)
    labelled = {q.id: q for q in (await load_eval_set(lab, demo, "labelled")).queries}
    for item in items:
        assert item.fact_uuid in graded.qrels[item.query_id]
        query = next(q for q in graded.queries if q.id == item.query_id)
        assert (query.text, query.type) == (labelled[item.query_id].text, labelled[item.query_id].type)
    assert {q.id for q in graded.scorable} >= {items[0].query_id}  # a supported citation makes it scorable
