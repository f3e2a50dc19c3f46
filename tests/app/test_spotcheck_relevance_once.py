"""Relevance is a question about a query and a fact: a queue with two cards of one (query, fact), one per
citation, asks it on the first card only; the second shows that answer and asks support."""

from __future__ import annotations

from dataclasses import replace

from streamlit.testing.v1 import AppTest

from pipeline.lab import Lab
from pipeline.spotcheck.queue import build_queue
from pipeline.spotcheck.records import QueueSpec
from pipeline.spotcheck.repo import insert_queue, queue_items
from pipeline.spotcheck.repo_answers import reviewer_relevance
from pipeline.spotcheck.sampling import ItemDraft
from tests.app.conftest import no_errors, open_page

PAGE = "app_pages/spotcheck.py"
REVIEWER = "Rita Once"


async def test_the_second_citation_of_a_query_and_fact_asks_support_only(app: AppTest, lab: Lab, demo: str) -> None:
    built = await build_queue(
        lab, QueueSpec("relevance once src", demo, "query_set", 1, 5, "random", "Tess", reranker="none", query_limit=1)
    )
    [item] = queue_items(lab.store, built.id)
    draft = ItemDraft(item.query_id, item.query, item.run_id, item.fact_uuid, item.fact, item.rank, item.score,
                      item.superseded, item.signals, item.citation)  # fmt: skip
    other_citation = replace(draft, citation=replace(item.citation, episode_uuid="another-episode", page=9))
    spec = QueueSpec("relevance once", demo, "query_set", 2, 5, "random", "Tess", reranker="none")
    queue = insert_queue(lab.store, spec, [draft, other_citation], spec.name, "Tess")
    first, second = queue_items(lab.store, queue.id)

    open_page(app, PAGE)
    app.text_input(key="spotcheck.reviewer").input(REVIEWER).run()
    app.selectbox(key="spotcheck.queue").set_value(queue.id).run()
    no_errors(app)
    app.button(key=f"spotcheck.{first.id}.r.2").click().run()  # relevance, on the first card
    app.button(key=f"spotcheck.{first.id}.next").click().run()
    no_errors(app)

    # the second card: no relevance buttons, the first card's answer shown, its hint asks support only
    keys = {b.key for b in app.button}
    assert f"spotcheck.{second.id}.v.supported" in keys
    assert not any(k.startswith(f"spotcheck.{second.id}.r.") for k in keys)
    captions = " ".join(c.value for c in app.caption)
    assert "Asked on card 1 (your answer there: 2 · relevant)" in captions
    assert "this card asks support only" in captions
    assert "relevance **A S D F**" not in captions
    assert set(reviewer_relevance(lab.store, queue.id, REVIEWER)) == {first.id}
