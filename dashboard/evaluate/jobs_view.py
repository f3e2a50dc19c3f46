"""The Evaluate page's sweep jobs: the deal's jobs with progress and ETA (read from SQLite, so every session sees
them), refreshing while one runs; cancel from any session (the page's one Cancel, beside the job's progress); a
session's own finished sweep opened for it, and a cancelled one's partial experiment likewise.
"""

from __future__ import annotations

from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dashboard.common.admin import NAME_KEY
from dashboard.common.page_state.flash import flash, show_flash
from dashboard.common.page_state.url import set_pick
from dashboard.common.tables import show_table, stamp
from dashboard.common.text import md
from dashboard.evaluate import sweep_job
from pipeline.api import Lab
from pipeline.api.models import SweepJob, SweepSpec
from pipeline.errors import RetrievalLabError

NS = "evaluate"
MINE, NOTICE, SEEN = f"{NS}.my_job", f"{NS}.notice", f"{NS}.jobs_seen"
OPEN = f"{NS}.experiment"  # the experiment shown: the URL's parameter, and the Show picker's (`pick_key`)
RUNNING_REFRESH_S = 1.0  # while a job of the deal runs
IDLE_REFRESH_S = 5.0  # otherwise: a job another session starts shows up within this
SHOWN = 10  # jobs listed


def active_job(lab: Lab, group_id: str) -> SweepJob | None:
    return next((j for j in lab.evaluation.deal_jobs(group_id, SHOWN) if j.active), None)


def who() -> str:
    """Who started a job: the admin's name when given in the sidebar, else this browser session."""
    name = str(st.session_state.get(NAME_KEY) or "").strip()
    if name:
        return name
    ctx = get_script_run_ctx()
    return f"dashboard session {ctx.session_id[:8]}" if ctx else "dashboard"


def on_run(lab: Lab, spec: SweepSpec) -> None:
    running = active_job(lab, spec.group_id)
    if running is not None:
        flash(NOTICE, f"Sweep job #{running.id} is still running on this deal: wait or cancel.", "warning")
        return
    try:
        st.session_state[MINE] = sweep_job.start(lab, spec, who())
    except RetrievalLabError as exc:
        flash(NOTICE, md(exc), "error")


def on_cancel(lab: Lab, job_id: int) -> None:
    if not sweep_job.cancel(lab, job_id):
        flash(NOTICE, f"Sweep job #{job_id} had already ended.", "info")


def follow_jobs(lab: Lab, group_id: str) -> None:
    """Startup recovery, this session's job once it ended (its experiment opened, or why not), the job list."""
    interrupted = sweep_job.startup(lab, str(lab.store.path))
    if interrupted:
        st.caption(f"{interrupted} sweep job(s) whose process is gone were marked interrupted.")
    mine = st.session_state.get(MINE)
    if mine is not None:
        job = lab.evaluation.get_job(mine)
        if job is None or not job.active:
            st.session_state.pop(MINE, None)
            if job is not None and job.experiment_id is not None:  # done, or cancelled with what it finished
                show_experiment(job.experiment_id)
                if job.state != "done":
                    flash(NOTICE, md(job.error or f"Sweep job #{job.id} ended: {job.state}."), "info")
            elif job is not None:
                kind = "info" if job.state == "cancelled" else "error"
                flash(NOTICE, md(job.error or f"Sweep job #{job.id} ended: {job.state}."), kind)
    jobs = lab.evaluation.deal_jobs(group_id, SHOWN)
    every = RUNNING_REFRESH_S if any(j.active for j in jobs) else IDLE_REFRESH_S
    st.fragment(run_every=every)(_jobs)(lab, group_id)
    show_flash(NOTICE)


def show_experiment(exp_id: int) -> None:
    """Open the experiment in this session and put it in the URL (a reload shows the same result)."""
    set_pick(OPEN, exp_id)


def _jobs(lab: Lab, group_id: str) -> None:
    jobs = lab.evaluation.deal_jobs(group_id, SHOWN)
    seen = tuple((j.id, j.state) for j in jobs)
    before = st.session_state.get(SEEN)
    st.session_state[SEEN] = seen
    if before is not None and before != seen:
        st.rerun()  # a job started or ended (here or in another session): the whole page follows
    with st.container(key=f"{NS}.jobs"):
        for job in (j for j in jobs if j.active):
            _active(lab, job)
        if jobs:
            st.caption(f"Sweep jobs of this deal (the {len(jobs)} latest)")
            show_table([_row(lab, j) for j in jobs], f"{NS}.jobs_table", times=("Started", "Ended"), height=150)
        else:
            saved = len(lab.evaluation.list_experiments(group_id))  # saved without a job: seeded or imported
            st.caption(
                "No sweep job has run on this deal yet"
                + (f"; its {saved} saved experiment(s) are under **Show**." if saved else ".")
            )


def _active(lab: Lab, job: SweepJob) -> None:
    state = "cancelling…" if job.state == "cancelling" else job.state
    cols = st.columns([6, 1.2])
    eta = lab.evaluation.eta_text(job.eta_s())
    text = f"Job #{job.id} · {job.done} of {job.total or '?'} queries · ETA {eta} · {state}"
    cols[0].progress(job.fraction, text=text)
    cols[0].caption(f"{md(_settings(lab, job))} · started by {md(job.created_by)} at {stamp(job.created_at)} UTC")
    cols[1].button(  # the page's one Cancel: beside the progress of what it stops
        "Cancel",
        key=f"{NS}.cancel_job_{job.id}",
        icon=":material/stop:",
        disabled=job.state == "cancelling",
        on_click=on_cancel,
        args=(lab, job.id),
    )


def _settings(lab: Lab, job: SweepJob) -> str:
    try:
        spec = lab.evaluation.spec_from_json(job.spec)
    except (ValueError, TypeError, KeyError):
        return "?"
    queries = f", sample {spec.sample} seed {spec.seed}" if spec.sample else ""
    queries += f", first {spec.limit_queries} queries" if spec.limit_queries else ""
    return (
        f"{','.join(spec.recipes)} · N {','.join(map(str, spec.candidates))} · k {','.join(map(str, spec.top_ks))} · "
        f"{','.join(spec.rerankers)} · {spec.judgments}{queries}"
    )


def _row(lab: Lab, job: SweepJob) -> dict[str, Any]:
    return {
        "Job": job.id,
        "State": job.state,
        "Progress": f"{job.done} / {job.total}",
        "ETA": lab.evaluation.eta_text(job.eta_s()),
        "Settings": _settings(lab, job),
        "Started by": job.created_by,
        "Started": job.created_at,
        "Ended": job.finished_at,
        "Experiment": f"#{job.experiment_id}" if job.experiment_id else None,
        "Note": job.error,
    }
