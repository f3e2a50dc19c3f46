"""One journal entry as stored: what an admin action meant to do, its before-state and the steps done."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

OPEN, COMMITTED, ROLLED_BACK, COMPLETED = "open", "committed", "rolled_back", "completed"
BEGUN, DONE = "begun", "committed"  # the first and last step boundary of every action


@dataclass(frozen=True)
class JournalEntry:
    id: str
    kind: str
    group_id: str
    actor: str
    before: dict[str, Any]  # everything a rollback needs, written before the first graph write
    steps: tuple[str, ...]  # the steps done, in order
    status: str
    created_at: str
    finished_at: str | None = None
    outcome: dict[str, Any] | None = None

    def did(self, step: str) -> bool:
        return step in self.steps

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> JournalEntry:
        data = dict(row)
        data["before"] = json.loads(data["before"])
        data["steps"] = tuple(json.loads(data["steps"]))
        data["outcome"] = json.loads(data["outcome"]) if data["outcome"] else None
        return cls(**data)
