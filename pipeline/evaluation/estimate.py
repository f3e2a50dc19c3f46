"""Before a sweep starts: how many queries and settings it runs, and about how long.

The time is the measured pace of the deal's latest sweep job that ran at least one query (its seconds per query,
from its row), scaled by the work one query needs: one first-stage pool and one ranking per (recipe, reranker, N),
twice with the stale-fact pass. It is an estimate, and says so: cached pools and scores make a repeat faster, and
a loaded machine slower. With no sweep run on the deal yet there is no pace to go by, and the line says that.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.evaluation.experiments import spec_from_json
from pipeline.evaluation.jobs.repo import list_jobs
from pipeline.evaluation.judgments import EvalSet
from pipeline.evaluation.records import BASELINE, SweepSpec
from pipeline.store.db import Store

JOBS_LOOKED_AT = 20  # the deal's latest jobs searched for a measured pace


@dataclass(frozen=True)
class SweepEstimate:
    queries: int  # queries the sweep runs
    scorable: int  # scorable queries of the set (in the split)
    settings: int  # the grid's settings and the baseline
    seconds: float | None  # None: nothing measured to go by
    basis: str  # where the pace comes from, or why there is none

    def text(self) -> str:
        of = "" if self.queries == self.scorable else f" (a sample of {self.scorable})"
        size = f"~{self.queries} queries{of} x {self.settings} settings"
        if self.seconds is None:
            return f"{size}; no time estimate yet: {self.basis}."
        return f"{size}, {duration(self.seconds)} (an estimate: {self.basis})."


def duration(seconds: float) -> str:
    if seconds < 60:
        return "under a minute"
    minutes = round(seconds / 60)
    return f"about {minutes} min" if minutes < 60 else f"about {minutes // 60} h {minutes % 60:02d} min"


def work_per_query(spec: SweepSpec) -> int:
    """Rankings one query needs: a (recipe, reranker, N) each, the baseline's included (`run_sweep`'s `needed`)."""
    return len({(s.pool, s.reranker) for s in (*spec.grid(), BASELINE)})


def estimate_sweep(store: Store, spec: SweepSpec, eval_set: EvalSet) -> SweepEstimate:
    """The sweep's size and its time at the pace of the deal's latest measured job. Bad options raise
    InvalidInput (as the sweep would)."""
    spec = spec.validate()
    scorable = len(eval_set.select(spec.split).queries)
    queries = len(eval_set.select(spec.split, spec.limit_queries, spec.sample, spec.seed).queries)
    grid = spec.grid()
    settings = len(grid) + (BASELINE not in grid)
    passes = 2 if spec.stale_rate and not spec.include_superseded else 1
    for job in list_jobs(store, spec.group_id, JOBS_LOOKED_AT):
        if job.active or job.done <= 0 or job.elapsed_s <= 0:
            continue
        try:
            measured = work_per_query(spec_from_json(job.spec))
        except (ValueError, TypeError, KeyError):
            continue
        per_query = job.elapsed_s / job.done  # a query of one pass (a stale-rate job counts each pass's queries)
        seconds = per_query / measured * work_per_query(spec) * queries * passes
        basis = f"sweep job #{job.id} took {per_query:.1f} s a query for {measured} rankings a query"
        return SweepEstimate(queries, scorable, settings, seconds, basis)
    return SweepEstimate(
        queries,
        scorable,
        settings,
        None,
        "no sweep has run on this deal; the job shows an ETA once its first query is done",
    )
