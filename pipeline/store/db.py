"""SQLite in WAL mode, schema versioned by numbered migrations (`migrations/NNNN_name.sql`).

Every write is one transaction (`with store.transaction()`), so a crash leaves a write whole or absent.
Connections are per thread (sqlite3 objects must not cross threads); the file is shared.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from pipeline.store.integrity import damaged_pages, damaged_store, quick_check
from pipeline.store.private import make_private_dir
from pipeline.utc import now_iso

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
DB_NAME = "retrieval_lab.sqlite3"


def utc_now() -> str:
    return now_iso("milliseconds")


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        make_private_dir(path.parent)  # 0700, files 0600 (runs, verdicts and the audit log are not for others)
        self._local = threading.local()
        try:
            self._check()
            self._migrate()
        except sqlite3.DatabaseError as exc:  # random bytes, a damaged page, no access: one line, not a trace
            problem = damaged_store(path, exc)
            if problem is None:
                raise
            self.close()
            raise problem from None

    def connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=True)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
        return conn

    def close(self) -> None:
        """Close this thread's connection (others close with their threads)."""
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT; any exception rolls everything back."""
        conn = self.connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def query(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        return self.connection().execute(sql, params).fetchall()

    @property
    def schema_version(self) -> int:
        return int(self.query("PRAGMA user_version")[0][0])

    def applied_migrations(self) -> set[int]:
        return {int(r[0]) for r in self.query("SELECT version FROM schema_migrations")}

    def _check(self) -> None:
        """SQLite's quick check of every page, once per Store object (one per process and data directory:
        `open_store`), before anything reads or writes: damage in the middle of the file is one line here, not a
        failure deep inside a command that reads the damaged record. About 2-3 ms per MB of store."""
        if (problem := quick_check(self.connection())) is not None:
            self.close()
            raise damaged_pages(self.path, problem)

    def _migrate(self) -> None:
        """Apply every migration file not applied yet, in number order, each with its record in one
        transaction. Tracked per version (not only as a high-water mark), so a migration that lands
        after a higher-numbered one is still applied."""
        conn = self.connection()
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
        files = {int(p.name[:4]): p for p in MIGRATIONS_DIR.glob("[0-9][0-9][0-9][0-9]_*.sql")}
        applied = self.applied_migrations()
        if not applied and self.schema_version:  # a database from before this table: trust its high-water mark
            applied = {v for v in files if v <= self.schema_version}
            with self.transaction() as tx:
                tx.executemany("INSERT INTO schema_migrations VALUES (?, ?)", [(v, utc_now()) for v in applied])
        for version in sorted(set(files) - applied):
            with self.transaction() as tx:
                for statement in files[version].read_text(encoding="utf-8").split(";\n"):
                    if statement.strip():
                        tx.execute(statement)
                tx.execute("INSERT INTO schema_migrations VALUES (?, ?)", (version, utc_now()))
                tx.execute(f"PRAGMA user_version = {max(version, self.schema_version)}")


def newest_migration() -> int:
    """The highest schema version this version of the tool knows."""
    return max(int(p.name[:4]) for p in MIGRATIONS_DIR.glob("[0-9][0-9][0-9][0-9]_*.sql"))


def store_path(data_dir: Path) -> Path:
    return data_dir / DB_NAME


@lru_cache(maxsize=8)
def open_store(data_dir: Path) -> Store:
    """One Store object per data directory and process."""
    return Store(store_path(data_dir))
