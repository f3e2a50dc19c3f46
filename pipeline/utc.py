"""UTC time, one way: now (as graphiti's `utc_now` gives it), ISO stamps, and times without a zone read as UTC.

A time that has a zone keeps it: graphiti's `ensure_utc` would convert it, which changes the ISO strings
stored in runs and shown back to the user (an `--as-of` given with an offset, for one).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, Literal

__all__ = ["MISSING", "as_utc", "day", "now_iso", "parse_time", "stamp", "to_utc", "utc_now"]

MISSING = "—"  # how a missing time (or any missing value) is shown


def utc_now() -> datetime:
    """Now, aware, in UTC: graphiti's `utc_now`, written here so that reading a clock never imports graphiti (whose
    package loads its LLM clients, seconds on a busy machine)."""
    return datetime.now(UTC)


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


def stamp(value: Any, *, seconds: bool = False) -> str:
    """A time as the app shows it, one way everywhere: in UTC, to the minute ("2026-11-23 17:00"; seconds only
    where they matter). Whoever shows it says "UTC" once: a table's header, a caption, a picker's label.
    Missing -> "—"; a stored value that is not a time is shown as it is."""
    try:
        moment = to_utc(value)
    except ValueError:
        return str(value)
    if moment is None:
        return MISSING
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def day(value: Any) -> str:
    """A date alone ("2026-11-23", a fact's valid_at): the UTC day of a time; missing -> "—"."""
    try:
        moment = to_utc(value)
    except ValueError:
        return str(value)
    return MISSING if moment is None else moment.astimezone(UTC).date().isoformat()
