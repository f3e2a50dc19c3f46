"""A sweep job as read back from SQLite, with what the page shows of it (progress, ETA)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from pipeline.utc import parse_time, utc_now

ACTIVE = ("queued", "running", "cancelling")  # a job in one of these has a process working on it
ENDED = ("done", "failed", "cancelled", "interrupted")


@dataclass(frozen=True)
class SweepJob:
    id: int
    group_id: str
    spec: str  # SweepSpec as JSON (experiments.spec_from_json reads it)
    created_by: str
    created_at: str
    owner: str
    state: str
    done: int
    total: int
    elapsed_s: float  # seconds from start to the last progress report
    started_at: str | None
    progress_at: str | None
    cancel_at_done: int | None  # queries done when the cancel was asked
    finished_at: str | None
    error: str | None
    experiment_id: int | None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> SweepJob:
        return cls(**{name: row[name] for name in cls.__dataclass_fields__})

    @property
    def active(self) -> bool:
        return self.state in ACTIVE

    @property
    def fraction(self) -> float:
        return min(self.done / self.total, 1.0) if self.total else 0.0

    def eta_s(self, now: datetime | None = None) -> float | None:
        """Seconds left at the pace so far (None before the first query is done, or once it ended)."""
        if not self.active or self.done <= 0 or not self.total or self.progress_at is None:
            return None
        pace = self.elapsed_s / self.done
        last = parse_time(self.progress_at)
        since = ((now or utc_now()) - last).total_seconds() if last else 0.0
        return max(pace * (self.total - self.done) - max(since, 0.0), 0.0)


def eta_text(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.0f} s"
    return f"{seconds // 60:.0f} min {seconds % 60:02.0f} s"
