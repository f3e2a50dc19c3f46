"""Whether the data directory's store can be used: there when the graph it describes needs it, and a database.

The rule for a missing store: an embedded data directory (the graph lives in it, no FALKORDB_URI / NEO4J_URI)
gets its store when it is first opened, before anything is written to its graph, so an embedded graph that
holds a deal while the store file is absent (or empty: 0 bytes is a new database to SQLite) has lost its
store. Starting on a new one would silently drop every record, journal entry and audit entry, and show our
deals as graphiti-written; that is refused (`missing_store`). A fresh directory (no deal in its graph) and an
external graph (a FalkorDB server or Neo4j, which our store does not describe alone) start a new store.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from pipeline.errors import StoreUnavailable
from pipeline.text import one_line

RESTORE_HINT = (
    "restore it from a backup: python -m pipeline restore BACKUP_DIR --force (made with python -m pipeline backup)"
)

_DAMAGED = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_UNREADABLE = ("SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_READONLY", "SQLITE_IOERR", "SQLITE_AUTH")


def store_absent(path: Path) -> bool:
    """No store there yet: no file, or an empty one (what SQLite creates before its first write)."""
    try:
        return path.stat().st_size == 0
    except FileNotFoundError:
        return True


def missing_store(path: Path, groups: Sequence[str]) -> StoreUnavailable:
    shown = ", ".join(repr(g) for g in list(groups)[:3]) + (", ..." if len(groups) > 3 else "")
    return StoreUnavailable(
        f"The store {path} is missing, but the embedded graph in {path.parent} holds deals it describes "
        f"({shown}); refusing to start on an empty store (their records and audit log would be lost). "
        f"Keep {path.parent} as it is and {RESTORE_HINT}; docs/recovery.md says more."
    )


def damaged_store(path: Path, exc: sqlite3.DatabaseError) -> StoreUnavailable | None:
    """One line for a store SQLite cannot read or write (damaged, not a database, no access); None for any
    other database error (a bug, a busy database)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith(_DAMAGED):
        what = "is damaged"
    elif name.startswith(_UNREADABLE):
        what = "cannot be opened"
    else:
        return None
    return StoreUnavailable(
        f"The store {path} {what} ({one_line(exc)}); nothing was changed. Keep it as it is and {RESTORE_HINT}; "
        "docs/recovery.md says more."
    )


def quick_check(conn: sqlite3.Connection) -> str | None:
    """SQLite's quick check of every page: its first finding, or None when the pages are sound."""
    (first,) = conn.execute("PRAGMA quick_check(1)").fetchone()
    return None if first == "ok" else str(first)


def damaged_pages(path: Path, problem: str) -> StoreUnavailable:
    """One line for a store whose `PRAGMA quick_check` found damage (its first finding, on one line)."""
    return StoreUnavailable(
        f"The store {path} is damaged (SQLite's quick check: {one_line(problem)[:200]}); nothing was changed. "
        f"Keep it as it is and {RESTORE_HINT}; docs/recovery.md says more."
    )


def damaged_record(path: Path, what: str, exc: BaseException) -> StoreUnavailable:
    """One line for a record of the store that no longer reads back (a packed blob that will not unpack): which
    record, and what to do."""
    return StoreUnavailable(
        f"The store {path} is damaged: {what} cannot be read back ({type(exc).__name__}: {one_line(exc)[:120]}); "
        f"nothing was changed. Keep it as it is and {RESTORE_HINT}; docs/recovery.md says more."
    )


def store_file_problem(path: Path, known_version: int) -> str | None:
    """What makes the file at `path` no store this version can take (not a database, damaged pages, no schema
    record of ours, a schema newer than `known_version`), or None. Read without writing a byte: SQLite opens it
    immutable (no journal, no lock files beside it)."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)
    except sqlite3.DatabaseError as exc:
        return f"not a SQLite database ({one_line(exc)})"
    try:
        if (problem := quick_check(conn)) is not None:
            return f"damaged (SQLite's quick check: {one_line(problem)[:200]})"
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "schema_migrations" not in tables:
            return "not a Retrieval Lab store (it has no schema_migrations table)"
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        applied = [int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations")]
        newest = max([version, *applied])
        if newest > known_version:
            return f"a store of schema {newest}, newer than this version of Retrieval Lab knows ({known_version})"
    except (sqlite3.DatabaseError, ValueError, TypeError) as exc:
        return f"not a readable store ({one_line(exc)})"
    finally:
        conn.close()
    return None
