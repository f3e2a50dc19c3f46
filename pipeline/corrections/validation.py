"""What a correction must satisfy before anything is written; each refusal says what to change."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from pipeline.corrections.graph import stored_fact
from pipeline.corrections.records import (
    CORRECTION_CHANNELS,
    MAX_STATEMENT_CHARS,
    CorrectionRefused,
    CorrectionRequest,
)
from pipeline.ingest.loading import parse_time
from pipeline.text import one_line
from pipeline.utc import as_utc

if TYPE_CHECKING:
    from pipeline.lab import Lab


def _as_datetime(value: datetime | date) -> datetime:
    if isinstance(value, date):  # a datetime is a date too
        return as_utc(value)
    raise CorrectionRefused("The date of the source is missing.")


async def validate(lab: Lab, group_id: str, request: CorrectionRequest) -> tuple[dict[str, Any], datetime]:
    """The old fact and the new valid_at, or CorrectionRefused saying what to change."""
    statement = one_line(request.statement)
    if not statement:
        raise CorrectionRefused("The corrected statement is empty: write the fact as it should read.")
    if len(statement) > MAX_STATEMENT_CHARS:
        raise CorrectionRefused(f"The statement is {len(statement):,} characters; the limit is {MAX_STATEMENT_CHARS}.")
    if request.channel not in CORRECTION_CHANNELS:
        raise CorrectionRefused(
            f"Source {request.channel!r} is not accepted: use a Q&A answer (qa_response) or an analyst note "
            "(analyst_chat)."
        )
    if not one_line(request.author):
        raise CorrectionRefused("Say who gave the corrected answer or wrote the note.")
    valid_at = _as_datetime(request.valid_at)
    if valid_at > datetime.now(UTC):
        raise CorrectionRefused(f"The date {valid_at.date()} is in the future: use the date the source said it.")
    await lab.deal(group_id)
    old = await stored_fact(lab, group_id, str(request.fact_uuid or ""))
    if old is None:
        raise CorrectionRefused(f"No fact with uuid {request.fact_uuid!r} in deal {group_id!r}.")
    if old.get("invalid_at") or old.get("expired_at"):
        raise CorrectionRefused(
            f"That fact is already superseded (invalid since {old.get('invalid_at') or old.get('expired_at')}): "
            "correct the fact that replaced it."
        )
    old_valid = parse_time(old.get("valid_at"))
    if old_valid is not None and valid_at < old_valid:
        raise CorrectionRefused(
            f"The date {valid_at.date()} is before the fact became valid ({old_valid.date()}): "
            "a correction cannot end a fact before it began."
        )
    if statement == one_line(old["fact"]):
        raise CorrectionRefused("The corrected statement is the same as the current fact: nothing to correct.")
    return old, valid_at
