"""Run a sweep as a job: claim its row, report progress to it, poll it for a cancel, save the result as an
experiment together with the job's end.

The same code serves the dashboard (which schedules `run_job` on its shared event loop and returns at once) and
the CLI (`python -m pipeline eval`, which awaits it). A job is claimed by the process named in its row, once
(`claim_job`), so it never runs twice; one whose process is gone (killed, stopped, or its pid now
another process's) is marked interrupted by whichever process looks next: `recover_jobs` runs at every start of
the dashboard and the CLI, `deal_jobs` before every listing of a deal's jobs, `request_cancel` before a cancel.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from pipeline.errors import InvalidInput, RetrievalLabError
from pipeline.evaluation.experiments import save_experiment, spec_from_json, unique_name
from pipeline.evaluation.jobs.records import SweepJob
from pipeline.evaluation.jobs.repo import (
    active_jobs,
    cancel_job,
    claim_job,
    end_job,
    finish_job,
    get_job,
    insert_job,
    interrupt_jobs,
    job_state,
    list_jobs,
    record_progress,
)
from pipeline.evaluation.records import Progress, SweepCancelled, SweepResult, SweepSpec
from pipeline.evaluation.sweep import check_available, run_sweep
from pipeline.processes import describe, owner_alive, this_process
from pipeline.store.db import Store
from pipeline.text import one_line
from pipeline.utc import utc_now

if TYPE_CHECKING:
    from pipeline.lab import Lab

log = logging.getLogger(__name__)

CANCEL_POLL_S = 0.02  # the cancel flag is read at most this often (checked at every step of a query; a read is ~0.1 ms)


def gone(owner: str) -> str:
    """The line of a job whose process is gone."""
    return f"The process running it ({describe(owner)}) is gone; nothing was saved. Run it again."


def stopped(owner: str) -> str:
    """The line of a job its own process ended at exit."""
    return f"The process running it ({describe(owner)}) stopped before it ended; nothing was saved. Run it again."


@dataclass(frozen=True)
class JobOutcome:
    job_id: int
    result: SweepResult
    experiment_id: int | None
    name: str | None


class StoredCancel:
    """The job's cancel flag, read from its row (any session or process may set it): `is_set()` for the sweep."""

    def __init__(self, store: Store, job_id: int, poll_s: float = CANCEL_POLL_S) -> None:
        self.store, self.job_id, self.poll_s = store, job_id, poll_s
        self._set = False
        self._read_at = 0.0

    def is_set(self) -> bool:
        if not self._set and time.monotonic() - self._read_at >= self.poll_s:
            self._read_at = time.monotonic()
            self._set = job_state(self.store, self.job_id) in ("cancelling", None)
        return self._set


def default_name() -> str:
    return f"sweep {utc_now().strftime('%Y-%m-%d %H:%M:%S')}"


def create_job(lab: Lab, spec: SweepSpec, created_by: str) -> int:
    """A queued job for this process to run; bad settings are refused here, before any row is written."""
    spec = spec.validate()
    if spec.limit_queries is not None and spec.limit_queries < 1:
        raise InvalidInput(f"--limit-queries must be at least 1; got {spec.limit_queries}.")
    check_available(lab, spec.rerankers)
    return insert_job(lab.store, spec.group_id, json.dumps(asdict(spec)), one_line(created_by, 80), this_process())


def request_cancel(store: Store, job_id: int) -> bool:
    """Ask the job to stop (from any session or process); False when it had already ended. A job whose process is
    gone has no one to see the cancel: it ends at once as interrupted, saying why."""
    job = get_job(store, job_id)
    if job is not None and job.active and not owner_alive(job.owner):
        return interrupt_jobs(store, {job_id: gone(job.owner)}) == 1
    return cancel_job(store, job_id)


def deal_jobs(store: Store, group_id: str, limit: int = 20) -> list[SweepJob]:
    """The deal's jobs, newest first, after marking interrupted those whose process is gone: a job nobody runs
    never shows as running, and never keeps the deal from a new sweep."""
    recover_jobs(store, group_id=group_id)
    return list_jobs(store, group_id, limit)


async def run_job(
    lab: Lab,
    job_id: int,
    progress: Progress | None = None,
    name: str | None = None,
    save: bool = True,
    concurrency: int | None = None,
) -> JobOutcome:
    """Run the job to its end and save it as an experiment (`name`, or "sweep <date time>", made unique on the
    deal). Raises SweepCancelled when cancelled (what finished is saved first, as a partial experiment the job's row
    names), RetrievalLabError when it failed: the row says so either way."""
    store = lab.store
    job = get_job(store, job_id)
    if job is None:
        raise InvalidInput(f"No sweep job #{job_id}.")
    if not claim_job(store, job_id, this_process()):
        if job.state == "cancelling" and job.owner == this_process():  # cancelled before it started
            end_job(store, job_id, "cancelled", "Sweep cancelled before it started; nothing was saved.")
            raise SweepCancelled("Sweep cancelled before it started; nothing was saved.")
        raise InvalidInput(f"Sweep job #{job_id} is {job.state}, not queued for this process: it is not run again.")
    spec = spec_from_json(job.spec)
    started = time.perf_counter()

    def report(done: int, total: int, message: str) -> None:
        record_progress(store, job_id, done, total, time.perf_counter() - started)
        if progress is not None:
            progress(done, total, message)

    try:
        extra = {} if concurrency is None else {"concurrency": concurrency}
        result = await run_sweep(lab, spec, progress=report, cancel=StoredCancel(store, job_id), **extra)
        exp_id, saved_as = _save(store, job_id, result, name, save)
    except SweepCancelled as exc:
        if exc.partial is None or not save:
            end_job(store, job_id, "cancelled", f"Sweep {exc}; nothing was saved." if exc.partial else str(exc))
            raise
        try:
            exp_id, saved_as = _save(store, job_id, exc.partial, name, save, state="cancelled", note=f"Sweep {exc}")
        except Exception:  # the job never stays running for a save that failed
            end_job(store, job_id, "cancelled", f"Sweep {exc}; saving what it finished failed.")
            raise
        raise SweepCancelled(
            f"Sweep {exc}: what it finished is saved as partial experiment #{exp_id} {saved_as!r}.", exc.partial
        ) from None
    except RetrievalLabError as exc:
        end_job(store, job_id, "failed", one_line(exc, 500))
        raise
    except (asyncio.CancelledError, KeyboardInterrupt):
        end_job(store, job_id, "interrupted", "Stopped before it ended (the process was stopped); nothing was saved.")
        raise
    except Exception as exc:
        end_job(store, job_id, "failed", one_line(f"{type(exc).__name__}: {exc}", 500))
        raise
    return JobOutcome(job_id, result, exp_id, saved_as)


def _save(
    store: Store,
    job_id: int,
    result: SweepResult,
    name: str | None,
    save: bool,
    state: str = "done",
    note: str | None = None,
) -> tuple[int | None, str | None]:
    """The experiment and the job's end (`state`, with `note` and the experiment's number) in one transaction; a
    cancel that came after the last query is too late to lose a finished result. A cancelled job's partial result
    is saved the same way, and its job ends cancelled."""
    if not save:
        end_job(store, job_id, state, note)
        return None, None
    saved_as = unique_name(store, result.spec.group_id, name or default_name())

    def done(conn: sqlite3.Connection, exp_id: int) -> None:
        line = f"{note}: the finished queries are saved as partial experiment #{exp_id}." if note else None
        finish_job(conn, job_id, state, line, exp_id)

    return save_experiment(store, result, saved_as, then=done), saved_as


def recover_jobs(store: Store, on_line: Callable[[str], None] | None = None, group_id: str | None = None) -> int:
    """Mark interrupted every active job (of one deal, or all) whose process is gone (a stopped or killed server,
    an interrupted CLI), each saying which process; one line says how many. Safe to call at any time: a live
    owner's job is left alone."""
    dead = {j.id: gone(j.owner) for j in active_jobs(store, group_id) if not owner_alive(j.owner)}
    count = interrupt_jobs(store, dead)
    if count:
        line = f"{count} sweep job{'s' if count != 1 else ''} whose process is gone marked interrupted."
        log.warning(line)
        if on_line is not None:
            on_line(line)
    return count


def interrupt_own_jobs(store: Store) -> int:
    """At exit: this process's active jobs end as interrupted (the next start would find them anyway)."""
    mine = {j.id: stopped(j.owner) for j in active_jobs(store) if j.owner == this_process()}
    return interrupt_jobs(store, mine)
