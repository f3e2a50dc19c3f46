"""Query sets as the pages, the CLI and the benchmarks use them: `lab.query_sets`. Each call reads or writes this
deployment's store (scoped to the deals it may show) and the graph through the lab; the values it hands out are in
`pipeline.api.models`. The logic lives in the modules named beside each call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.query_sets import formats, history, importer, logs, verdicts
from pipeline.query_sets.export import export_query_set
from pipeline.query_sets.records import QuerySet, SaveResult, SetInfo
from pipeline.query_sets.sets import list_query_sets, load_query_set

if TYPE_CHECKING:
    from pipeline.lab import Lab


class QuerySets:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    # --- stored sets (sets.py) ---

    def sets(self, group_id: str) -> list[SetInfo]:
        """The deal's stored query sets."""
        return list_query_sets(self.lab.store, group_id)

    def load(self, group_id: str, name: str | None = None) -> QuerySet | None:
        """The deal's set `name` (default: the deal's default set); None when it has none."""
        return load_query_set(self.lab.store, group_id, name)

    # --- reading queries from files or History (formats.py, logs.py, history.py) ---

    read_path = staticmethod(formats.read_path)
    sample = staticmethod(logs.sample)

    async def read_history(self, group_id: str, limit: int = history.HISTORY_LIMIT) -> logs.SetRead:
        """The newest `limit` distinct queries of the deal's History."""
        return await history.read_history(self.lab, group_id, limit)

    # --- storing what was read, or the analysts' verdicts (importer.py, verdicts.py) ---

    async def import_set(
        self,
        group_id: str,
        read: logs.SetRead,
        name: str,
        replace: bool = False,
        created_by: str = "import-queries",
    ) -> importer.ImportReport:
        """Queries and judgments read from files (or History) as the deal's set `name`, checked against the deal."""
        return await importer.import_query_set(self.lab, group_id, read, name, replace, created_by)

    def save_verdicts(
        self, group_id: str, name: str, replace: bool = False, created_by: str = "verdicts"
    ) -> SaveResult:
        """Freeze today's verdict judgments of the deal into its stored set `name`."""
        return verdicts.save_verdicts_as_query_set(self.lab.store, group_id, name, replace, created_by)

    # --- writing a set for other tools (export.py) ---

    export = staticmethod(export_query_set)
