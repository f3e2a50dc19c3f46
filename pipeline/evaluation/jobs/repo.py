"""The sweep jobs' SQL (table `sweep_jobs`, migration 0013). Every state change is one conditional UPDATE, so two
processes never both claim, finish or cancel the same job."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from pipeline.deals.access import access_of
from pipeline.evaluation.jobs.records import ACTIVE, SweepJob
from pipeline.store.db import Store, utc_now

_ACTIVE = ", ".join(f"'{s}'" for s in ACTIVE)


def insert_job(store: Store, group_id: str, spec: str, created_by: str, owner: str) -> int:
    access_of(store).require(group_id, "run a sweep")
    with store.transaction() as conn:
        cur = conn.execute(
            "INSERT INTO sweep_jobs (group_id, spec, created_by, created_at, owner) VALUES (?, ?, ?, ?, ?)",
            (group_id, spec, created_by, utc_now(), owner),
        )
        return int(cur.lastrowid or 0)


def claim_job(store: Store, job_id: int, owner: str) -> bool:
    """queued -> running, by its owner only, once: a job never runs twice."""
    with store.transaction() as conn:
        cur = conn.execute(
            "UPDATE sweep_jobs SET state = 'running', started_at = ?, progress_at = ? "
            "WHERE id = ? AND owner = ? AND state = 'queued'",
            (utc_now(), utc_now(), job_id, owner),
        )
        return cur.rowcount == 1


def record_progress(store: Store, job_id: int, done: int, total: int, elapsed_s: float) -> None:
    with store.transaction() as conn:
        conn.execute(
            "UPDATE sweep_jobs SET done = ?, total = ?, elapsed_s = ?, progress_at = ? "
            f"WHERE id = ? AND state IN ({_ACTIVE})",
            (done, total, elapsed_s, utc_now(), job_id),
        )


def job_state(store: Store, job_id: int) -> str | None:
    rows = store.query("SELECT state FROM sweep_jobs WHERE id = ?", (job_id,))
    return rows[0]["state"] if rows else None


def cancel_job(store: Store, job_id: int) -> bool:
    """queued/running -> cancelling (the runner sees it within one query); False when the job had ended."""
    access = access_of(store)
    with store.transaction() as conn:
        rows = conn.execute("SELECT group_id FROM sweep_jobs WHERE id = ?", (job_id,)).fetchall()
        if not rows:
            return False
        access.require(rows[0]["group_id"], "cancel a sweep")
        cur = conn.execute(
            "UPDATE sweep_jobs SET state = 'cancelling', cancel_at_done = done "
            "WHERE id = ? AND state IN ('queued', 'running')",
            (job_id,),
        )
        return cur.rowcount == 1


def finish_job(
    conn: sqlite3.Connection, job_id: int, state: str, error: str | None = None, experiment_id: int | None = None
) -> None:
    """The job's end, inside the caller's transaction (a saved experiment and its job's 'done' land together)."""
    conn.execute(
        f"UPDATE sweep_jobs SET state = ?, error = ?, experiment_id = ?, finished_at = ? "
        f"WHERE id = ? AND state IN ({_ACTIVE})",
        (state, error, experiment_id, utc_now(), job_id),
    )


def end_job(store: Store, job_id: int, state: str, error: str | None = None) -> None:
    with store.transaction() as conn:
        finish_job(conn, job_id, state, error)


def get_job(store: Store, job_id: int) -> SweepJob | None:
    allowed, params = access_of(store).sql("group_id")
    rows = store.query(f"SELECT * FROM sweep_jobs WHERE id = :id AND {allowed}", {**params, "id": job_id})
    return SweepJob.from_row(rows[0]) if rows else None


def list_jobs(store: Store, group_id: str, limit: int = 20) -> list[SweepJob]:
    """The deal's jobs, newest first."""
    allowed, params = access_of(store).sql("group_id")
    rows = store.query(
        f"SELECT * FROM sweep_jobs WHERE group_id = :g AND {allowed} ORDER BY id DESC LIMIT :n",
        {**params, "g": group_id, "n": limit},
    )
    return [SweepJob.from_row(r) for r in rows]


def active_jobs(store: Store, group_id: str | None = None) -> list[SweepJob]:
    """Every job some process should be working on, of one deal or of all (for recovery: not scoped)."""
    rows = store.query(
        f"SELECT * FROM sweep_jobs WHERE state IN ({_ACTIVE}) AND (:g IS NULL OR group_id = :g)", {"g": group_id}
    )
    return [SweepJob.from_row(r) for r in rows]


def interrupt_jobs(store: Store, reasons: Mapping[int, str]) -> int:
    """Each job (id -> the line saying why) ends as interrupted, if it is still active; how many did."""
    if not reasons:
        return 0
    with store.transaction() as conn:
        return sum(
            conn.execute(
                f"UPDATE sweep_jobs SET state = 'interrupted', error = ?, finished_at = ? "
                f"WHERE id = ? AND state IN ({_ACTIVE})",
                (reason, utc_now(), job_id),
            ).rowcount
            for job_id, reason in reasons.items()
        )
