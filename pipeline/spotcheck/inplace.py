"""Relevance grades given in place, on a result card of the Compare page (as Quepid grades a result list).

A grade is a reviewer's relevance answer on a spot-check item, recorded by `record_relevance` like any other,
so it joins the analysts' judgments (`verdict_judgments`), their agreement and the adjudication queue. Each deal
has one open queue for them, `COMPARE_QUEUE` (source `query_set`), created with the first grade by its reviewer.
A graded (query, fact) pair is one item of that queue whoever grades it: the first grade appends it (with the
result's first citation, its rank and score where it was graded), later grades of the pair, by anyone, answer
that item. Query texts are the same pair when equal once trimmed, single-spaced and case-folded (as Compare
finds a query's judgments).

Query id: when the query matches a query of the deal's default labelled set, the item takes that query's id
and text, so the grade joins that query's judgments (keyed by its id, beside the grades of spot-check queues
built from the set) rather than standing apart under its text; any other query has the id "" and is keyed by
its text. Appending is one transaction (`repo.append_item`); the grade is recorded after it, and an item whose
grade did not follow stays in the queue unanswered, to be graded on either page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.errors import InvalidInput
from pipeline.query_sets import load_query_set
from pipeline.query_sets.logs import normalised
from pipeline.retrieval.records import Result
from pipeline.retrieval.retrieve import validate_query
from pipeline.spotcheck.queue import result_drafts
from pipeline.spotcheck.records import QueueItem, QueueSpec, RelevanceRecord
from pipeline.spotcheck.repo import append_item, queue_items, queue_named
from pipeline.spotcheck.repo_answers import reviewer_relevance
from pipeline.spotcheck.verdicts import check_grade, clean_reviewer, record_relevance
from pipeline.store.db import Store

if TYPE_CHECKING:
    from pipeline.lab import Lab

COMPARE_QUEUE = "Graded on Compare"
PARAMS = {"graded_on": "compare"}  # marks the queue as this module's: a sampled queue of that name is not


@dataclass(frozen=True)
class InPlaceGrade:
    item: QueueItem
    relevance: RelevanceRecord


def labelled_query(store: Store, group_id: str, query: str) -> tuple[str, str]:
    """(id, text) of the deal's default-set query matching `query`, else ("", `query`)."""
    query_set = load_query_set(store, group_id)
    wanted = normalised(query)
    for labelled in query_set.queries if query_set else ():
        if normalised(labelled.text) == wanted:
            return labelled.id, labelled.text
    return "", query


def compare_item(store: Store, group_id: str, query: str, result: Result, created_by: str) -> QueueItem:
    """The Compare queue's item for (query, the result's fact), appended (with the queue, when it is the first)
    when the pair has none yet."""
    if not result.citations:
        raise InvalidInput("This fact has no citation: a graded item needs one (nothing was recorded).")
    query_id, text = labelled_query(store, group_id, query)
    # no supersession relatives (they take every fact of the deal): only the fact's own superseded flag is a signal
    draft = result_drafts(result, query_id, text, None, set())[0]
    spec = QueueSpec(COMPARE_QUEUE, group_id, "query_set", 1, 0, "random", created_by)
    return append_item(store, spec, PARAMS, draft, lambda item: normalised(item.query) == normalised(text))


async def grade_in_place(
    lab: Lab, group_id: str, query: str, result: Result, reviewer: str, grade: int
) -> InPlaceGrade:
    """Record `reviewer`'s relevance grade (0-3) of the result's fact for `query`; a second grade of the pair
    by the same reviewer revises theirs. Everything is checked before anything is written."""
    reviewer = clean_reviewer(reviewer)
    grade = check_grade(grade)
    query = validate_query(query)
    await lab.deal(group_id)
    item = compare_item(lab.store, group_id, query, result, reviewer)
    return InPlaceGrade(item, record_relevance(lab.store, item.id, reviewer, grade))


def compare_grades(store: Store, group_id: str, query: str, reviewer: str) -> dict[str, RelevanceRecord]:
    """fact uuid -> `reviewer`'s grade of it for `query`, given on Compare."""
    queue = queue_named(store, group_id, COMPARE_QUEUE)
    if queue is None or not reviewer.strip():
        return {}
    wanted = normalised(query)
    mine = reviewer_relevance(store, queue.id, reviewer)
    return {
        item.fact_uuid: mine[item.id]
        for item in queue_items(store, queue.id)
        if item.id in mine and normalised(item.query) == wanted
    }
