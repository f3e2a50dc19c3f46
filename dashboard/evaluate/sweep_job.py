"""Sweeps as server-side jobs on the Evaluate page (issue 17): start one, list the deal's jobs with progress and ETA
for every session, cancel from any session.

Where a job runs: on the app's one event loop (`dashboard/common/runtime.py`), scheduled and not awaited. That loop
lives as long as the server process, not the browser tab, so closing the tab leaves the job running and listed; the
graph drivers and the Lab are bound to that loop already (a worker thread would need a second Lab and a second set of
connections); and the sweep is async, so while it waits on the graph server other sessions' calls run on the same
loop. What a session sees is read from SQLite (`sweep_jobs`), never from session state, so every session of the deal
sees the same list; a cancel is a row update the runner polls within each query. A job whose process is gone (this
server stopped, or a killed `pipeline eval`) is marked interrupted by the next listing of its deal's jobs, the
next start, or a cancel (and an exit handler marks this server's own at a clean stop).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
from collections.abc import Coroutine
from typing import Any

import streamlit as st

from dashboard.common.runtime import run
from pipeline.api import Lab
from pipeline.api.models import SweepSpec
from pipeline.errors import RetrievalLabError

log = logging.getLogger(__name__)

# the futures of the jobs this process runs: a scheduled task is only weakly held by the loop
_RUNNING: dict[int, concurrent.futures.Future[None]] = {}


async def _submit(coro: Coroutine[Any, Any, None]) -> concurrent.futures.Future[None]:
    """Schedule `coro` on the running (app) loop without waiting for it."""
    return asyncio.run_coroutine_threadsafe(coro, asyncio.get_running_loop())


async def _run(lab: Lab, job_id: int) -> None:
    try:
        await lab.evaluation.run_job(job_id)
    except RetrievalLabError as exc:  # cancelled or failed: the job's row says so, the page shows it
        log.info("sweep job #%s ended: %s", job_id, exc)
    except Exception:
        log.exception("sweep job #%s failed", job_id)


@st.cache_resource(show_spinner=False)
def startup(_lab: Lab, path: str) -> int:
    """Once per server process (per store `path`): jobs whose process is gone are marked interrupted (one line in
    the log and on the page), and this process's own jobs will be at exit."""
    count = _lab.evaluation.recover_jobs()
    atexit.register(_lab.evaluation.interrupt_own_jobs)
    return count


def start(lab: Lab, spec: SweepSpec, created_by: str) -> int:
    """A job for the sweep, running in the background on the app's loop; its id. Bad settings raise before."""
    job_id = lab.evaluation.create_job(spec, created_by)
    future = run(_submit(_run(lab, job_id)))
    _RUNNING[job_id] = future
    future.add_done_callback(lambda _f: _RUNNING.pop(job_id, None))
    return job_id


def cancel(lab: Lab, job_id: int) -> bool:
    return lab.evaluation.request_cancel(job_id)
