"""A fact correction as an admin asks for it and as it is recorded, with its SQLite row form."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from pipeline.errors import InvalidInput

CORRECTION_CHANNELS = {"qa_response": "Q&A answer", "analyst_chat": "Analyst note"}
MAX_STATEMENT_CHARS = 2000
RESTORED_KEYS = ("invalid_at", "expired_at", "superseded_by")  # what a correction changes on the old fact
ACTION_CORRECT, ACTION_UNDO = "fact.correct", "fact.undo_correct"


class CorrectionRefused(InvalidInput):
    """A correction or undo that cannot be done as asked; nothing was written."""


@dataclass(frozen=True)
class CorrectionRequest:
    fact_uuid: str
    statement: str  # the corrected fact, one sentence
    channel: str  # qa_response / analyst_chat
    author: str  # who answered or wrote the note
    valid_at: datetime | date  # when the source said it; the new fact is valid from then
    source_text: str = ""  # the answer or note as written (default: the statement)


@dataclass(frozen=True)
class Correction:
    id: str
    group_id: str
    old_uuid: str
    new_uuid: str
    episode_uuid: str
    mention_uuids: tuple[str, ...]
    old_fact: str
    new_fact: str
    channel: str
    author: str
    valid_at: str
    prior_props: dict[str, Any]  # the old fact's RESTORED_KEYS before the correction (None = absent)
    actor: str
    created_at: str
    audit_id: int
    undone_at: str | None = None
    undone_by: str | None = None
    undo_audit_id: int | None = None

    @property
    def undone(self) -> bool:
        return self.undone_at is not None

    @classmethod
    def from_row(cls, row: Any) -> Correction:
        data = dict(row)
        data["mention_uuids"] = tuple(json.loads(data["mention_uuids"]))
        data["prior_props"] = json.loads(data["prior_props"])
        return cls(**data)

    def to_row(self) -> dict[str, Any]:
        """The columns written when the correction is made (an undo fills in the rest)."""
        row = {k: v for k, v in self.__dict__.items() if k not in ("undone_at", "undone_by", "undo_audit_id")}
        row["mention_uuids"] = json.dumps(list(self.mention_uuids))
        row["prior_props"] = json.dumps(self.prior_props, default=str)
        return row
