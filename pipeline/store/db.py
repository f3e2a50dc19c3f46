"""SQLite in WAL mode, schema versioned by numbered migrations (`migrations/NNNN_name.sql`).

Every write is one transaction (`with store.transaction()`), so a crash leaves a write whole or absent.
Connections are per thread (sqlite3 objects must not cross threads); the file is shared.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
DB_NAME = "retrieval_lab.sqlite3"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: str
    actor: str
    action: str
    group_id: str
    target: str
    details: dict[str, Any]


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._migrate()

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

    def _migrate(self) -> None:
        for path in sorted(MIGRATIONS_DIR.glob("[0-9][0-9][0-9][0-9]_*.sql")):
            version = int(path.name[:4])
            if version <= self.schema_version:
                continue
            with self.transaction() as conn:  # a migration and its version bump land together
                for statement in path.read_text(encoding="utf-8").split(";\n"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {version}")

    # --- audit log (shared by every admin action) -------------------------------------------

    def audit(
        self,
        actor: str,
        action: str,
        group_id: str,
        target: str,
        details: dict[str, Any],
        conn: sqlite3.Connection | None = None,
    ) -> int:
        """Record one admin action; pass `conn` to make it part of a larger transaction."""
        sql = "INSERT INTO audit_log (at, actor, action, group_id, target, details) VALUES (?, ?, ?, ?, ?, ?)"
        args = (utc_now(), actor, action, group_id, target, json.dumps(details, default=str, sort_keys=True))
        if conn is not None:
            return int(conn.execute(sql, args).lastrowid or 0)
        with self.transaction() as own:
            return int(own.execute(sql, args).lastrowid or 0)

    def audit_log(self, group_id: str | None = None, action_prefix: str = "", limit: int = 500) -> list[AuditEntry]:
        rows = self.query(
            """
            SELECT * FROM audit_log
            WHERE (:g IS NULL OR group_id = :g) AND action LIKE :prefix
            ORDER BY id DESC LIMIT :limit
            """,
            {"g": group_id, "prefix": f"{action_prefix}%", "limit": limit},
        )
        return [
            AuditEntry(r["id"], r["at"], r["actor"], r["action"], r["group_id"], r["target"], json.loads(r["details"]))
            for r in rows
        ]


@lru_cache(maxsize=8)
def open_store(data_dir: Path) -> Store:
    """One Store object per data directory and process."""
    return Store(data_dir / DB_NAME)
