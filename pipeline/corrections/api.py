"""Fact corrections as the Timeline page, the audit log and the benchmarks use them: `lab.corrections`. The values
it hands out are in `pipeline.api.models`. The logic lives in the modules named beside each call."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from pipeline.corrections import actions, repo, validation
from pipeline.corrections.records import Correction, CorrectionRequest

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Corrections:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab  # `list_corrections` uses only its store: a store-only holder will do

    async def validate(self, group_id: str, request: CorrectionRequest) -> tuple[dict[str, Any], datetime]:
        """The old fact and the new valid_at, or CorrectionRefused saying what to change (validation.py)."""
        return await validation.validate(self.lab, group_id, request)

    async def correct_fact(self, group_id: str, request: CorrectionRequest, actor: str) -> Correction:
        """Supersede a current fact with a corrected one; all of it or nothing, audited (actions.py)."""
        return await actions.correct_fact(self.lab, group_id, request, actor)

    async def undo_correction(self, group_id: str, correction_id: str, actor: str) -> Correction:
        """Put the graph back exactly as it was before the correction, audited (actions.py)."""
        return await actions.undo_correction(self.lab, group_id, correction_id, actor)

    def list_corrections(self, group_id: str) -> list[Correction]:
        """The deal's corrections, newest first (repo.py)."""
        return repo.list_corrections(self.lab.store, group_id)
