"""Temporal filters, applied at search time (graphiti's `SearchFilters`), never after ranking.

Filtering after reranking would leave fewer than k results: on a large real graph over half of the
candidates were superseded facts (graphiti issue #1804).
"""

from __future__ import annotations

import operator
from datetime import datetime

from graphiti_core.edges import EntityEdge
from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters

from pipeline.utc import as_utc

IS_NULL = DateFilter(comparison_operator=ComparisonOperator.is_null)


def temporal_filter(include_superseded: bool, as_of: datetime | None) -> SearchFilters:
    """Current facts only (default); everything (include_superseded); or what was valid at `as_of`."""
    if as_of is not None:
        return SearchFilters(
            valid_at=[
                [DateFilter(date=as_of, comparison_operator=ComparisonOperator.less_than_equal)],
                [IS_NULL],
            ],
            invalid_at=[
                [IS_NULL],
                [DateFilter(date=as_of, comparison_operator=ComparisonOperator.greater_than)],
            ],
        )
    if include_superseded:
        return SearchFilters()
    return SearchFilters(invalid_at=[[IS_NULL]], expired_at=[[IS_NULL]])


def passes(edge: EntityEdge, search_filter: SearchFilters) -> bool:
    """Whether a fact meets graphiti's date filters (an OR of AND-groups per field, as graphiti's Cypher reads
    them), for hits that did not come through graphiti's filtered statements (the vector index's)."""
    for name in ("valid_at", "invalid_at", "created_at", "expired_at"):
        groups: list[list[DateFilter]] | None = getattr(search_filter, name)
        if groups and not any(all(_holds(getattr(edge, name), f) for f in group) for group in groups):
            return False
    return True


def _holds(value: datetime | None, condition: DateFilter) -> bool:
    op = condition.comparison_operator
    if op is ComparisonOperator.is_null:
        return value is None
    if op is ComparisonOperator.is_not_null:
        return value is not None
    if value is None or condition.date is None:
        return False  # Cypher: a comparison with null is not true
    return _COMPARE[op](as_utc(value), as_utc(condition.date))


_COMPARE = {
    ComparisonOperator.equals: operator.eq,
    ComparisonOperator.not_equals: operator.ne,
    ComparisonOperator.greater_than: operator.gt,
    ComparisonOperator.less_than: operator.lt,
    ComparisonOperator.greater_than_equal: operator.ge,
    ComparisonOperator.less_than_equal: operator.le,
}
