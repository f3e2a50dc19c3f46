"""What a data file's or a command line's page number and date may be, checked once for every reader.

A date is ISO 8601 (YYYY-MM-DD, optionally a time and a zone) in years 1900-2199: every date a deal can hold,
and far from the ends of Python's range, where converting a zone to UTC overflows.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from pipeline.ingest.jsonl import FieldError
from pipeline.numbers import whole_number
from pipeline.utc import parse_time

MAX_PAGE = 1_000_000
YEARS = (1900, 2199)
DATE_RULE = f"an ISO date YYYY-MM-DD (a time and zone may follow) in years {YEARS[0]}-{YEARS[1]}"


def page_field(value: Any, name: str = "page") -> int | None:
    """A page number 1..MAX_PAGE (a whole number, or its digits 0-9); None when absent or empty."""
    if value is None or value == "":
        return None
    number: int | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value)
    elif isinstance(value, str):
        number = whole_number(value.strip(), 1, MAX_PAGE)
    if number is None or not 1 <= number <= MAX_PAGE:
        raise FieldError(f"field {name!r} is {str(value)[:40]!r}: give a whole number from 1 to {MAX_PAGE:,}")
    return number


def date_field(value: Any, name: str = "date") -> datetime | None:
    """An aware datetime in YEARS; None when absent or empty; FieldError naming the field otherwise."""
    if value is None or value == "":
        return None
    try:
        parsed = parse_time(value) if isinstance(value, str) else None
        if parsed is not None and YEARS[0] <= parsed.year <= YEARS[1]:
            parsed.timestamp()  # converting the zone must not overflow
            return parsed
    except (ValueError, OverflowError):
        pass
    raise FieldError(f"field {name!r} is {str(value)[:40]!r}: give {DATE_RULE}")
