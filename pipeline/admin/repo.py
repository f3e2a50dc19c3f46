"""The unlock throttle's SQL: one row per data directory, read and updated inside the caller's transaction
(BEGIN IMMEDIATE), so two processes trying at once are counted one after the other."""

from __future__ import annotations

import sqlite3

from pipeline.store.db import utc_now

SCOPE = "admin"


def throttle_state(conn: sqlite3.Connection) -> tuple[int, float]:
    """(failures in a row, epoch until which tries are refused)."""
    row = conn.execute(
        "SELECT failures, locked_until_epoch FROM admin_unlock_throttle WHERE scope = ?", (SCOPE,)
    ).fetchone()
    return (int(row[0]), float(row[1])) if row else (0, 0.0)


def record_failure(conn: sqlite3.Connection, failures: int, locked_until: float) -> None:
    conn.execute(
        "INSERT INTO admin_unlock_throttle (scope, failures, last_failure_at, locked_until_epoch) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (scope) DO UPDATE SET failures = excluded.failures, last_failure_at = excluded.last_failure_at, "
        "locked_until_epoch = excluded.locked_until_epoch",
        (SCOPE, failures, utc_now(), locked_until),
    )


def clear_failures(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM admin_unlock_throttle WHERE scope = ?", (SCOPE,))
