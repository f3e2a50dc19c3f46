"""Relevance is a question about a query and a fact: a queue's cards of the same (query, fact), one per citation,
share the first one's relevance question (pipeline/spotcheck/queue.py `relevance_cards`)."""

from __future__ import annotations

from pipeline.retrieval.records import Citation
from pipeline.spotcheck.queue import relevance_cards
from pipeline.spotcheck.records import QueueItem


def card(item_id: int, position: int, query: str, fact_uuid: str, episode: str) -> QueueItem:
    citation = Citation(
        episode_uuid=episode, snippet="", episode_valid_at=None, relevance_score=0.0, retrieved_at="",
        document_id="", document_name="", page=None, chunk=None, channel="document", confidence=None,
        source_description="", author="",
    )  # fmt: skip
    return QueueItem(item_id, 1, position, "q-" + query if query else "", query, None, fact_uuid, "a fact", 1, 0.5,
                     False, (), citation)  # fmt: skip


def test_the_second_citation_of_a_query_and_fact_shares_the_first_cards_relevance() -> None:
    items = [
        card(10, 1, "revenue?", "f1", "e1"),
        card(11, 2, "revenue?", "f2", "e1"),
        card(12, 3, "revenue?", "f1", "e2"),  # same query and fact as card 1, another citation
        card(13, 4, "cash?", "f1", "e3"),  # same fact, another query: asked again
        card(14, 5, "", "f1", "e4"),  # a fact sample: no relevance question
    ]
    assert relevance_cards(list(reversed(items))) == {10: 10, 11: 11, 12: 10, 13: 13}
