"""UTC time, one way: now (graphiti's `utc_now`), ISO stamps, and times without a zone read as UTC.

A time that has a zone keeps it: graphiti's `ensure_utc` would convert it, which changes the ISO strings
stored in runs and shown back to the user (an `--as-of` given with an offset, for one).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, Literal

from graphiti_core.utils.datetime_utils import utc_now

__all__ = ["as_utc", "now_iso", "parse_time", "to_utc", "utc_now"]


def now_iso(timespec: Literal["seconds", "milliseconds"] = "seconds") -> str:
    """Now in ISO 8601. Each record keeps the precision it has always had: "seconds" for runs, sweeps and
    deals, "milliseconds" for the store's audit and bookkeeping rows."""
    return utc_now().isoformat(timespec=timespec)


def as_utc(value: date) -> datetime:
    """A datetime without a zone read as UTC (one with a zone kept); a date as its midnight, UTC."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return datetime(value.year, value.month, value.day, tzinfo=UTC)


def parse_time(value: str | None) -> datetime | None:
    """ISO 8601 (a trailing "Z" too) as an aware datetime; None or "" -> None; ValueError if not a time."""
    if not value:
        return None
    return as_utc(datetime.fromisoformat(value.replace("Z", "+00:00")))


def to_utc(value: Any) -> datetime | None:
    """A datetime, a date or an ISO string (as graph rows hold them) as an aware datetime; None or "" -> None."""
    if value is None or value == "":
        return None
    if isinstance(value, date):
        return as_utc(value)
    return parse_time(str(value))
