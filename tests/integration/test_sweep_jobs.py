"""Sweeps as jobs (issue 17): a row per sweep with its progress, a cancel from another process that lands inside
the query in flight, jobs of a killed process marked interrupted, the saved experiment equal to the computed result,
and `python -m pipeline eval` running through the same job code."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import InvalidInput
from pipeline.evaluation.experiments import experiment_label, list_experiments, load_experiment
from pipeline.evaluation.jobs import create_job, recover_jobs, request_cancel, run_job
from pipeline.evaluation.jobs.repo import claim_job, end_job, get_job, insert_job, list_jobs
from pipeline.evaluation.records import SweepCancelled, SweepSpec
from pipeline.evaluation.sweep import run_sweep
from pipeline.lab import Lab
from pipeline.processes import this_process
from pipeline.store import open_store

ROOT = Path(__file__).resolve().parents[2]
SMALL = dict(candidates=(10, 25), top_ks=(3, 10), rerankers=("none", "local"), limit_queries=6)
# long enough to be caught mid-way on any machine: every query, 4 depths, both rerankers, nothing from the cache
LONG = dict(candidates=(10, 25, 50, 100), top_ks=(3, 10), rerankers=("none", "local"), use_cache=False)


async def test_a_job_reports_progress_and_saves_the_computed_result(lab: Lab, demo: str) -> None:
    job_id = create_job(lab, SweepSpec(demo, use_cache=False, **SMALL), "tester")  # type: ignore[arg-type]
    queued = get_job(lab.store, job_id)
    assert queued is not None and queued.state == "queued" and queued.created_by == "tester"
    seen: list[tuple[int, int, str]] = []

    def progress(done: int, total: int, _message: str) -> None:
        row = get_job(lab.store, job_id)
        assert row is not None
        seen.append((row.done, row.total, row.state))

    outcome = await run_job(lab, job_id, progress)
    assert seen[0] == (0, 6, "running") and seen[-1] == (6, 6, "running") and len(seen) == 7
    job = get_job(lab.store, job_id)
    assert job is not None and job.state == "done" and (job.done, job.total) == (6, 6)
    assert job.experiment_id == outcome.experiment_id and job.finished_at and job.error is None
    assert outcome.name is not None and outcome.name.startswith("sweep 20")

    # the experiment is the computed run, statistics included (not a cached repeat's)
    info, saved = load_experiment(lab.store, outcome.experiment_id or 0)
    assert info.name == outcome.name
    assert saved.settings == outcome.result.settings and saved.stats == outcome.result.stats
    assert sorted(saved.rows, key=lambda r: (r.setting.key, r.query_id)) == sorted(
        outcome.result.rows, key=lambda r: (r.setting.key, r.query_id)
    )
    assert saved.stats.pools_retrieved > 0 and saved.stats.pools_cached == 0
    assert saved.fingerprint == outcome.result.fingerprint
    fp = saved.fingerprint
    assert fp["graph"]["facts"] > 0 and len(fp["graph"]["content"]) == 20
    assert fp["judgments"]["source"] == "labelled" and len(fp["judgments"]["hash"]) == 16
    assert fp["settings"]["candidates"] == [10, 25]

    # a job never runs twice; a second job of the same name gets a name of its own
    assert not claim_job(lab.store, job_id, this_process())
    with pytest.raises(InvalidInput, match="not queued"):
        await run_job(lab, job_id)
    again = await run_job(lab, create_job(lab, SweepSpec(demo, **SMALL), "tester"), name=outcome.name)  # type: ignore[arg-type]
    assert again.name == f"{outcome.name} (2)"
    assert again.result.stats.pools_cached > 0  # this one came from the cache, and says so


async def test_a_cancel_lands_inside_the_query_in_flight(lab: Lab, demo: str) -> None:
    """The flag is checked between the searches and reranker calls of one query: a cancel asked while query 2 runs
    stops query 2, it is not let finish."""

    class MidQuery:
        def __init__(self) -> None:
            self.done, self.checks = 0, 0

        def is_set(self) -> bool:
            if self.done >= 1:
                self.checks += 1
            return self.checks > 3  # query 2 has started and is a few steps in

    flag = MidQuery()

    def progress(done: int, _total: int, _message: str) -> None:
        flag.done = done

    spec = SweepSpec(demo, **{**LONG, "limit_queries": 6})  # type: ignore[arg-type]
    with pytest.raises(SweepCancelled, match="after 1 of 6 queries"):
        await run_sweep(lab, spec, progress=progress, cancel=flag)


async def test_cancel_from_another_process_lands_within_one_query(lab: Lab, demo: str, data_dir: Path) -> None:
    """The other process asks once two queries are done; the sweep waits there until it has asked (however slowly
    that process starts or runs beside it), so what is measured is only where the cancel lands."""
    job_id = create_job(lab, SweepSpec(demo, **LONG), "tester")  # type: ignore[arg-type]
    canceller = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CANCEL_SCRIPT,
        str(data_dir),
        str(job_id),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )

    def until_asked(done: int, _total: int, _message: str) -> None:
        stuck = time.monotonic() + 180
        while done == 2 and (job := get_job(lab.store, job_id)) is not None and job.cancel_at_done is None:
            assert time.monotonic() < stuck, "the other process never asked"
            time.sleep(0.05)

    with pytest.raises(SweepCancelled, match="saved as partial experiment #"):
        await run_job(lab, job_id, until_asked)
    out, _ = await canceller.communicate()
    assert canceller.returncode == 0 and out.decode().strip() == "asked"
    job = get_job(lab.store, job_id)
    assert job is not None and job.state == "cancelled"
    assert job.cancel_at_done is not None and 2 <= job.cancel_at_done < job.total
    assert job.done <= job.cancel_at_done + 1, (job.done, job.cancel_at_done)  # within one query
    # what finished is kept: a partial experiment, named by the job, marked partial wherever it is listed
    assert job.experiment_id is not None
    assert job.error == (
        f"Sweep cancelled after {job.done} of {job.total} queries: the finished queries are saved as partial "
        f"experiment #{job.experiment_id}."
    )
    info, saved = load_experiment(lab.store, job.experiment_id)
    assert saved.partial == {"reason": "cancelled", "queries": job.done, "of": job.total}
    assert info.partial == saved.partial and saved.stats.queries == job.done == len(saved.queries)
    listed = next(e for e in list_experiments(lab.store, demo) if e.id == job.experiment_id)
    assert experiment_label(listed).startswith(f"PARTIAL (cancelled after {job.done} of {job.total} queries) #")
    assert saved.recommendation().sentence.startswith(f"On a partial run (cancelled after {job.done} of ")


CANCEL_SCRIPT = """
import sys, time
from pathlib import Path
from pipeline.store import open_store
from pipeline.evaluation.jobs import request_cancel
from pipeline.evaluation.jobs.repo import get_job
store, job_id = open_store(Path(sys.argv[1])), int(sys.argv[2])
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    job = get_job(store, job_id)
    if job is not None and job.done >= 2:
        print("asked" if request_cancel(store, job_id) else "too late")
        break
    time.sleep(0.05)
"""


async def test_a_killed_cli_job_is_ended_by_whoever_looks_next(lab: Lab, demo: str, data_dir: Path) -> None:
    """`python -m pipeline eval` runs its sweep as a job; killed mid-sweep (kill -9: no handler runs), its job is
    left 'running' until another process looks: a cancel then ends it at once as interrupted, saying which process
    is gone (nobody is left to see a cancel). A live process's job is left alone."""
    before = {j.id for j in list_jobs(lab.store, demo)}
    cli = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "eval", "--group", demo, "--candidates", "10,25,50,100", "--no-cache"],
        cwd=ROOT,
        env={**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data_dir)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            mine = [j for j in list_jobs(lab.store, demo) if j.id not in before]
            if mine and mine[0].done >= 1:
                break
            await asyncio.sleep(0.1)
        else:
            pytest.fail("the CLI's job never reported progress")
        assert mine[0].state == "running" and mine[0].created_by == "cli"
        assert recover_jobs(lab.store) == 0  # its owner is alive: nothing to recover
        cli.send_signal(signal.SIGKILL)
    finally:
        cli.wait(30)
    job = get_job(lab.store, mine[0].id)
    assert job is not None and job.state == "running"  # nobody has looked yet
    assert request_cancel(lab.store, job.id)
    job = get_job(lab.store, job.id)
    assert job is not None and job.state == "interrupted" and job.experiment_id is None
    assert job.error == (
        f"The process running it (pid {cli.pid} on {socket.gethostname()}) is gone; nothing was saved. Run it again."
    )
    assert recover_jobs(lab.store) == 0  # once


def test_a_job_whose_pid_now_runs_another_process_is_interrupted(lab: Lab, demo: str) -> None:
    """The pid alone is not the owner: a live process on that pid that started at another time is not it."""
    alive = os.getppid()  # a live process that is not the owner: its start time is not "1"
    owner = f"{socket.gethostname()}:{alive}:1"
    job_id = insert_job(lab.store, demo, json.dumps({"group_id": demo}), "tester", owner)
    assert claim_job(lab.store, job_id, owner)
    lines: list[str] = []
    assert recover_jobs(lab.store, lines.append) == 1
    assert lines == ["1 sweep job whose process is gone marked interrupted."]
    job = get_job(lab.store, job_id)
    assert job is not None and job.state == "interrupted"
    assert f"(pid {alive} on {socket.gethostname()}) is gone" in (job.error or "")
    # this process, as named in rows it writes, is alive
    own = insert_job(lab.store, demo, json.dumps({"group_id": demo}), "tester", this_process())
    assert claim_job(lab.store, own, this_process())
    assert recover_jobs(lab.store) == 0
    assert request_cancel(lab.store, own) and get_job(lab.store, own).state == "cancelling"  # type: ignore[union-attr]
    end_job(lab.store, own, "cancelled")


def test_cli_eval_runs_through_a_job(demo: str, capsys: pytest.CaptureFixture[str]) -> None:
    store = open_store(Path(os.environ["RETRIEVAL_LAB_DATA_DIR"]))
    argv = ["eval", "--group", demo, "--candidates", "10", "--top-k", "3", "--reranker", "none", "--limit-queries", "3"]
    assert main([*argv, "--json", "--name", "cli job sweep"]) == 0
    out = json.loads(capsys.readouterr().out)
    job = get_job(store, out["job_id"])
    assert job is not None and job.state == "done" and job.created_by == "cli" and (job.done, job.total) == (3, 3)
    assert job.experiment_id == out["experiment_id"]
    info, saved = load_experiment(store, out["experiment_id"])
    assert info.name == "cli job sweep" and saved.stats.queries == 3
    assert out["fingerprint"]["judgments"]["hash"] == saved.fingerprint["judgments"]["hash"]
    # a name already taken is refused before any sweep runs (exit 2, one line, no job row)
    jobs = len(list_jobs(store, demo, 1000))
    assert main([*argv, "--name", "cli job sweep"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert len(list_jobs(store, demo, 1000)) == jobs


def test_a_queued_job_cancelled_before_it_starts_never_runs(lab: Lab, demo: str) -> None:
    job_id = insert_job(lab.store, demo, json.dumps({"group_id": demo}), "tester", this_process())
    assert request_cancel(lab.store, job_id)
    assert not request_cancel(lab.store, job_id) or get_job(lab.store, job_id).state == "cancelling"  # type: ignore[union-attr]
    with pytest.raises(SweepCancelled, match="before it started"):
        asyncio.run(run_job(lab, job_id))
    job = get_job(lab.store, job_id)
    assert job is not None and job.state == "cancelled"
    assert not request_cancel(lab.store, job_id)  # ended: nothing to cancel
