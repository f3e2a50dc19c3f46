"""The audit log as its page and the pages' deal state read it: `lab.audit` (or, on a store alone while the graph
backend is down, `pipeline.api.StoreFeatures.audit`). The values it hands out are in `pipeline.api.models`. The
logic lives in the modules named beside each call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.audit import repo
from pipeline.audit.describe import Described, action_label, describe
from pipeline.audit.records import AuditEntry
from pipeline.audit.repo import AuditFilter

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Audit:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab  # only its `store` is used: a store-only holder will do

    # --- reading the log (repo.py) ---

    def log(self, group_id: str | None = None, action_prefix: str = "", limit: int = 500) -> list[AuditEntry]:
        """The newest entries first, of one deal (or all this deployment may show)."""
        return repo.audit_log(self.lab.store, group_id, action_prefix, limit)

    def filtered(self, where: AuditFilter, limit: int = 5000) -> list[AuditEntry]:
        """The newest entries first that pass `where`."""
        return repo.filtered_audit_log(self.lab.store, where, limit)

    def facets(self) -> dict[str, list[str]]:
        """The distinct deals, actions and people of the visible log: the filters' options."""
        return repo.audit_facets(self.lab.store)

    # --- saying what an entry did (describe.py) ---

    @staticmethod
    def action_label(action: str) -> str:
        return action_label(action)

    @staticmethod
    def describe(entry: AuditEntry) -> Described:
        """The entry's action name, what / before / after as plain text, and the record an undo would start from."""
        return describe(entry)
