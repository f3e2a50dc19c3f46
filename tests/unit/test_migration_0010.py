"""Migration 0010 on a store that already holds experiments: every row survives the rebuild, the children
still cascade with their experiment, and names become unique per deal instead of across deals."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.support.migrations import migrated, store_before

HEAD = (
    "INSERT INTO experiments (name, group_id, created_at, judgments, queries, duration_s, spec, payload) "
    "VALUES (?, ?, 't', 'labelled', 1, 1.0, '{}', '{}')"
)


def test_0010_keeps_every_experiment_row_and_scopes_names_per_deal(tmp_path: Path, monkeypatch) -> None:
    old = store_before(10, tmp_path, monkeypatch)
    with old.transaction() as conn:
        exp_id = conn.execute(HEAD, ("baseline", "deal_a")).lastrowid
        conn.execute(
            "INSERT INTO experiment_settings VALUES "
            "(?, 's', 10, 3, 'none', '', 1, '{}', '{}', 1, 2, 0, NULL, 0, NULL, NULL)",
            (exp_id,),
        )
        conn.execute("INSERT INTO experiment_queries VALUES (?, 's', 'q1', '{}', 1.5, '[]')", (exp_id,))
        with pytest.raises(sqlite3.IntegrityError):  # before: one name across every deal
            conn.execute("SAVEPOINT s")
            try:
                conn.execute(HEAD, ("baseline", "deal_b"))
            finally:
                conn.execute("ROLLBACK TO s")
    new = migrated(old, monkeypatch)
    assert 10 in new.applied_migrations()
    assert [tuple(r) for r in new.query("SELECT id, name, group_id FROM experiments")] == [
        (exp_id, "baseline", "deal_a")
    ]
    assert new.query("SELECT candidates, p50_ms FROM experiment_settings WHERE experiment_id = ?", (exp_id,))[0][:] == (
        10,
        1.0,
    )
    assert new.query("SELECT latency_ms FROM experiment_queries WHERE experiment_id = ?", (exp_id,))[0][0] == 1.5
    assert new.query("PRAGMA foreign_key_check") == []
    with new.transaction() as conn:
        conn.execute(HEAD, ("baseline", "deal_b"))  # the same name on another deal
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(HEAD, ("baseline", "deal_a"))
    with new.transaction() as conn:
        conn.execute("DELETE FROM experiments WHERE id = ?", (exp_id,))
    assert new.query("SELECT COUNT(*) FROM experiment_settings")[0][0] == 0  # children still cascade
    assert new.query("SELECT COUNT(*) FROM experiment_queries")[0][0] == 0
    assert new.query("SELECT COUNT(*) FROM admin_unlock_throttle")[0][0] == 0
