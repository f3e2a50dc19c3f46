"""The run history as the pages, the CLI and the benchmarks use it: `lab.history` (or, on a store alone while the
graph backend is down, `pipeline.api.StoreFeatures.history`). Each call reads or writes the store through the
lab; the values it hands out are in `pipeline.api.models`. The logic lives in the modules named beside each call."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pipeline.history import compare, latency, records, repo
from pipeline.history.records import FilterChoices, RunFilter, RunSummary, Source, StoredRun
from pipeline.retrieval.records import RetrievalRun

if TYPE_CHECKING:
    from pipeline.lab import Lab


class History:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab  # only its `store` is used: a store-only holder will do

    # --- recording runs (repo.py) ---

    def save_run(self, run: RetrievalRun, source: Source) -> int:
        """Record one run in one transaction; its id."""
        return repo.save_run(self.lab.store, run, source)

    def save_payloads(self, items: Iterable[tuple[Mapping[str, Any], Source]]) -> list[int]:
        """Record many runs (`to_dict()` payload, source) in one transaction: all or none."""
        return repo.save_payloads(self.lab.store, items)

    # --- reading them (repo.py) ---

    def load_run(self, run_id: int) -> StoredRun:
        return repo.load_run(self.lab.store, run_id)

    def count_runs(self, flt: RunFilter | None = None) -> int:
        return repo.count_runs(self.lab.store, flt)

    def list_runs(self, flt: RunFilter | None = None, limit: int = repo.MAX_LIST) -> list[RunSummary]:
        """The newest matching runs first."""
        return repo.list_runs(self.lab.store, flt, limit)

    def filter_choices(self) -> FilterChoices:
        """The values the run filters offer."""
        return repo.filter_choices(self.lab.store)

    def runs_stamp(self) -> tuple[int, int]:
        """(how many runs, the newest id): it changes whenever a run is recorded or removed."""
        return repo.runs_stamp(self.lab.store)

    run_label = staticmethod(records.run_label)

    # --- comparing two runs (compare.py) ---

    compare_runs = staticmethod(compare.compare_runs)

    def graph_changed_between(self, a: RetrievalRun, b: RetrievalRun) -> compare.GraphChanges | None:
        """What this tool changed in the deal's graph between two runs."""
        return compare.graph_changed_between(self.lab.store, a, b)

    # --- latency and cost (latency.py) ---

    def load_timings(self, flt: RunFilter | None = None) -> latency.TimingTable:
        return latency.load_timings(self.lab.store, flt)

    def load_costs(
        self,
        prices_per_mtok: Mapping[str, float],
        flt: RunFilter | None = None,
        prices_per_1k_searches: Mapping[str, float] | None = None,
    ) -> list[latency.CostRow]:
        return latency.load_costs(self.lab.store, prices_per_mtok, flt, prices_per_1k_searches)

    percentiles = staticmethod(latency.percentiles)
    stage_percentiles = staticmethod(latency.stage_percentiles)
    median_stages_by_reranker = staticmethod(latency.median_stages_by_reranker)
    reranker_rows = staticmethod(latency.reranker_rows)
