"""Sweeps as server-side jobs: a row in SQLite per sweep (spec, who/when, state, progress, error, experiment),
run by one process at a time, cancellable from any session or process, saved as an experiment when it ends.

- `records.py`: the job as read back (`SweepJob`), its states and its ETA;
- `repo.py`: the job's SQL;
- `owner.py`: which process runs a job, and whether that process is still alive;
- `runner.py`: run one job to its end (the dashboard on its shared loop, the CLI in-process).
"""

from pipeline.evaluation.jobs.records import ACTIVE, SweepJob
from pipeline.evaluation.jobs.runner import (
    JobOutcome,
    StoredCancel,
    create_job,
    recover_jobs,
    request_cancel,
    run_job,
)

__all__ = [
    "ACTIVE",
    "JobOutcome",
    "StoredCancel",
    "SweepJob",
    "create_job",
    "recover_jobs",
    "request_cancel",
    "run_job",
]
