from pathlib import Path

import pytest

from pipeline.audit import audit_log, record_audit
from pipeline.store.db import Store


def test_migrations_apply_once_and_the_audit_log_survives_a_reopen(tmp_path: Path) -> None:
    store = Store(tmp_path / "lab.sqlite3")
    version = store.schema_version
    assert version >= 1
    entry_id = record_audit(store, "ana", "fact.correct", "demo", "fact-1", {"old": "a", "new": "b"})
    reopened = Store(tmp_path / "lab.sqlite3")
    assert reopened.schema_version == version
    [entry] = audit_log(reopened, "demo")
    assert (entry.id, entry.actor, entry.action, entry.target) == (entry_id, "ana", "fact.correct", "fact-1")
    assert entry.details == {"old": "a", "new": "b"}
    assert reopened.query("PRAGMA journal_mode")[0][0] == "wal"


def test_a_failed_transaction_writes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "lab.sqlite3")
    with pytest.raises(RuntimeError), store.transaction() as conn:
        record_audit(store, "ana", "merge", "demo", "x", {}, conn=conn)
        raise RuntimeError("crash mid-write")
    assert audit_log(store, "demo") == []


def test_a_migration_that_lands_after_a_higher_one_is_still_applied(tmp_path: Path, monkeypatch) -> None:
    from pipeline.store import db

    migrations = tmp_path / "migrations"
    migrations.mkdir()
    (migrations / "0001_a.sql").write_text("CREATE TABLE a (x INTEGER);\n")
    (migrations / "0003_c.sql").write_text("CREATE TABLE c (x INTEGER);\n")
    monkeypatch.setattr(db, "MIGRATIONS_DIR", migrations)
    assert Store(tmp_path / "s.sqlite3").applied_migrations() == {1, 3}
    (migrations / "0002_b.sql").write_text("CREATE TABLE b (x INTEGER);\nINSERT INTO b VALUES (2);\n")
    store = Store(tmp_path / "s.sqlite3")
    assert store.applied_migrations() == {1, 2, 3}
    assert store.query("SELECT x FROM b")[0][0] == 2
    assert store.schema_version == 3
    Store(tmp_path / "s.sqlite3")  # reopening applies nothing twice
    assert store.query("SELECT count(*) FROM b")[0][0] == 1
