"""Analysts' spot-check verdicts frozen into a labelled set, so they can be evaluated and exported like any other
set (the live `verdicts` judgments source changes with every new verdict; a frozen set does not).

The grades are `verdict_judgments`': the analysts' relevance grades (0-3; the adjudicated grade, else the lower
median of several reviewers); support verdicts are no relevance judgments. A query keeps its labelled id,
text, type and split when it came from the deal's default set, else it is keyed by its text with the type
"spot-check".
"""

from __future__ import annotations

from pipeline.errors import InvalidInput
from pipeline.query_sets.records import LabelledQuery, QuerySet, SaveResult
from pipeline.query_sets.sets import load_query_set, save_query_set
from pipeline.spotcheck import verdict_judgments
from pipeline.spotcheck.repo_answers import verdict_rows
from pipeline.store.db import Store


def verdict_queries(store: Store, group_id: str, judged: dict[str, dict[str, int]]) -> tuple[LabelledQuery, ...]:
    """The judged queries (sorted by key), described by the default set where it knows them."""
    default = load_query_set(store, group_id)
    known = {q.id: q for q in default.queries} if default else {}
    texts = {row.query_id or row.query: row.query for row in verdict_rows(store, group_id) if row.query}
    return tuple(
        known[key] if key in known else LabelledQuery(key, texts.get(key, key), "spot-check") for key in sorted(judged)
    )


def save_verdicts_as_query_set(
    store: Store, group_id: str, name: str, replace: bool = False, created_by: str = "verdicts"
) -> SaveResult:
    """Freeze today's verdict judgments of the deal into its stored set `name`."""
    judged = verdict_judgments(store, group_id)
    if not judged:
        raise InvalidInput(f"Deal {group_id!r} has no analysts' verdicts on queries yet: nothing to freeze.")
    query_set = QuerySet(group_id, verdict_queries(store, group_id, judged), judged, name, "verdicts")
    return save_query_set(store, query_set, created_by, replace)
