"""Temporal filters, applied at search time (graphiti's `SearchFilters`), never after ranking.

Filtering after reranking would leave fewer than k results: on a large real graph over half of the
candidates were superseded facts (graphiti issue #1804).
"""

from __future__ import annotations

from datetime import datetime

from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters

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
