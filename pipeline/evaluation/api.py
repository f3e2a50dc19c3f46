"""Evaluation as the pages, the CLI and the benchmarks use it: `lab.evaluation`. Sweeps (run as jobs or directly),
their judgments, saved experiments, their comparison and exports; each call reads or writes this deployment's store
and the graph through the lab. The values it hands out are in `pipeline.api.models`; the logic lives in the modules
named beside each call."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from pipeline.evaluation import (
    compare,
    coverage,
    estimate,
    experiments,
    export,
    fingerprint,
    judgments,
    manifest,
    recommend,
    records,
    repo,
    ship,
    sweep,
    vector_gain,
)
from pipeline.evaluation.jobs import records as job_records
from pipeline.evaluation.jobs import repo as job_repo
from pipeline.evaluation.jobs import runner
from pipeline.evaluation.jobs.records import SweepJob
from pipeline.evaluation.judgments import EvalSet
from pipeline.evaluation.records import Progress, SweepResult, SweepSpec

if TYPE_CHECKING:
    from pipeline.lab import Lab


class Evaluation:
    def __init__(self, lab: Lab) -> None:
        self.lab = lab

    # --- sweeps as server-side jobs (jobs/) ---

    def create_job(self, spec: SweepSpec, created_by: str) -> int:
        """A queued job for this process to run; bad settings are refused before any row is written."""
        return runner.create_job(self.lab, spec, created_by)

    async def run_job(
        self, job_id: int, progress: Progress | None = None, name: str | None = None, save: bool = True
    ) -> runner.JobOutcome:
        """Run the job to its end and save it as an experiment (see `runner.run_job`)."""
        return await runner.run_job(self.lab, job_id, progress, name=name, save=save)

    def recover_jobs(self, on_line: Callable[[str], None] | None = None) -> int:
        """Mark interrupted every active job whose process is gone; how many."""
        return runner.recover_jobs(self.lab.store, on_line)

    def interrupt_own_jobs(self) -> int:
        """At exit: this process's active jobs end as interrupted."""
        return runner.interrupt_own_jobs(self.lab.store)

    def request_cancel(self, job_id: int) -> bool:
        """Ask the job to stop; False when it had already ended."""
        return runner.request_cancel(self.lab.store, job_id)

    def get_job(self, job_id: int) -> SweepJob | None:
        return job_repo.get_job(self.lab.store, job_id)

    def deal_jobs(self, group_id: str, limit: int = 20) -> list[SweepJob]:
        """The deal's jobs, newest first (those whose process is gone marked interrupted first)."""
        return runner.deal_jobs(self.lab.store, group_id, limit)

    eta_text = staticmethod(job_records.eta_text)
    spec_from_json = staticmethod(experiments.spec_from_json)

    # --- a sweep, its judgments and its size (sweep.py, judgments.py, estimate.py) ---

    async def run_sweep(
        self, spec: SweepSpec, progress: Progress | None = None, concurrency: int = sweep.CONCURRENT_QUERIES
    ) -> SweepResult:
        """Every setting of `spec` over the deal's judged queries, nothing saved (a job saves it)."""
        return await sweep.run_sweep(self.lab, spec, progress, concurrency=concurrency)

    async def load_eval_set(
        self, group_id: str, source: str = "labelled", trust_judge: bool = False
    ) -> judgments.EvalSet:
        """The deal's judged queries from `source` (labelled, set:NAME, verdicts, judge, verdicts+judge)."""
        return await judgments.load_eval_set(self.lab, group_id, source, trust_judge)

    async def available_eval_sets(self, group_id: str) -> list[EvalSet]:
        """Every source of judgments the deal has, for the Evaluate page's query sets."""
        return await judgments.available_eval_sets(self.lab, group_id)

    def estimate_sweep(self, spec: SweepSpec, eval_set: EvalSet) -> estimate.SweepEstimate:
        """The sweep's size and about how long it takes (from the deal's last sweep's pace)."""
        return estimate.estimate_sweep(self.lab.store, spec, eval_set)

    check_metric = staticmethod(records.check_metric)

    # --- saved experiments (experiments.py, repo.py) ---

    def list_experiments(self, group_id: str | None = None) -> list[experiments.ExperimentInfo]:
        """The saved experiments (of one deal), newest first."""
        return experiments.list_experiments(self.lab.store, group_id)

    def load_experiment(self, exp_id: int, rankings: bool = True) -> tuple[experiments.ExperimentInfo, SweepResult]:
        return experiments.load_experiment(self.lab.store, exp_id, rankings)

    def with_rankings(self, exp_id: int, result: SweepResult, settings: Iterable[str]) -> SweepResult:
        """`result` (read without rankings) with these settings' rankings read in."""
        return experiments.with_rankings(self.lab.store, exp_id, result, settings)

    def save_experiment(self, result: SweepResult, name: str) -> int:
        return experiments.save_experiment(self.lab.store, result, name)

    def rename_experiment(self, exp_id: int, group_id: str, name: str) -> str:
        return experiments.rename_experiment(self.lab.store, exp_id, group_id, name)

    def experiment_names(self, group_id: str) -> set[str]:
        return repo.experiment_names(self.lab.store, group_id)

    experiment_label = staticmethod(experiments.experiment_label)
    clean_experiment_name = staticmethod(experiments.clean_experiment_name)

    # --- reading and comparing results (compare.py, recommend.py, coverage.py, fingerprint.py, ...) ---

    def data_warnings(self, a: SweepResult, b: SweepResult) -> list[str]:
        """What makes two experiments' numbers differ besides their settings (graph, judgments, admin changes)."""
        return compare.data_warnings(a, b, self.lab.store)

    compare_experiments = staticmethod(compare.compare_experiments)
    recommended_side = staticmethod(compare.recommended_side)
    setup_differences = staticmethod(compare.setup_differences)
    wins_and_losses = staticmethod(compare.wins_and_losses)
    metric_label = staticmethod(recommend.metric_label)
    kind_words = staticmethod(coverage.kind_words)
    describe_graph = staticmethod(fingerprint.describe_graph)
    describe_judgments = staticmethod(fingerprint.describe_judgments)
    manifest_differences = staticmethod(manifest.manifest_differences)
    gains_over_vector = staticmethod(vector_gain.gains_over_vector)

    # --- exports (export.py, ship.py) ---

    settings_table = staticmethod(export.settings_table)
    render_table = staticmethod(export.render_table)
    to_csv = staticmethod(export.to_csv)
    per_query_csv = staticmethod(export.per_query_csv)
    to_json = staticmethod(export.to_json)

    def setting_module(self, result: SweepResult, key: str, experiment: str = "") -> str:
        """The setting `key` as a Python module to ship into a service (graphiti search + rerank)."""
        return ship.setting_module(result, key, self.lab.settings, experiment)
