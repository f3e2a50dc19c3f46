"""The data directory is private: created 0700, the SQLite store with its WAL and SHM 0600, and what an
older version left world-readable is tightened when it is opened (pipeline/store/private.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pipeline.store import private
from pipeline.store.db import DB_NAME, Store


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_data_dir_and_its_store_are_private(tmp_path: Path) -> None:
    os.umask(0o022)  # as a login shell would leave it
    data_dir = tmp_path / "fresh" / "data"
    store = Store(data_dir / DB_NAME)
    with store.transaction() as conn:
        conn.execute("INSERT INTO audit_log (at, actor, action, group_id, target, details) VALUES (1,2,3,4,5,6)")
    (data_dir / "export.csv").write_text("a,b\n")  # anything the process writes there later
    assert mode(data_dir) == 0o700
    files = sorted(p.name for p in data_dir.iterdir())
    assert {DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", "export.csv"} <= set(files)
    assert {name: mode(data_dir / name) for name in files} == dict.fromkeys(files, 0o600)


def test_an_existing_readable_data_dir_is_tightened(tmp_path: Path) -> None:
    os.umask(0o022)
    data_dir = tmp_path / "old"
    (data_dir / "appendonlydir").mkdir(parents=True)
    for path in (data_dir / "redis.log", data_dir / "dump.rdb", data_dir / "appendonlydir" / "a.aof"):
        path.write_text("x")
        path.chmod(0o644)
    data_dir.chmod(0o755)
    private._tightened.discard(data_dir.resolve())
    Store(data_dir / DB_NAME)
    assert mode(data_dir) == 0o700
    assert mode(data_dir / "appendonlydir") == 0o700
    assert mode(data_dir / "dump.rdb") == 0o600
    assert mode(data_dir / "appendonlydir" / "a.aof") == 0o600
