"""One audit-log entry: who did which admin action on what, with its details as JSON."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: str
    actor: str
    action: str
    group_id: str
    target: str
    details: dict[str, Any]

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> AuditEntry:
        return cls(
            row["id"],
            row["at"],
            row["actor"],
            row["action"],
            row["group_id"],
            row["target"],
            json.loads(row["details"]),
        )


def details_json(details: Mapping[str, Any]) -> str:
    """Sorted keys so equal details read the same; anything not JSON (dates, paths) as its text."""
    return json.dumps(details, default=str, sort_keys=True)
