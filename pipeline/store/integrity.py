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
