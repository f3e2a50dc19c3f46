"""A store as it was before a migration: only the migrations numbered below it applied, then every migration again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.store import db
from pipeline.store.db import Store

ALL_MIGRATIONS = db.MIGRATIONS_DIR


def store_before(version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """A new store at `tmp_path / "s.sqlite3"` with the migrations numbered below `version` applied."""
    before = tmp_path / f"before-{version:04d}"
    before.mkdir()
    for path in ALL_MIGRATIONS.glob("*.sql"):
        if int(path.name[:4]) < version:
            shutil.copy(path, before / path.name)
    monkeypatch.setattr(db, "MIGRATIONS_DIR", before)
    store = Store(tmp_path / "s.sqlite3")
    assert version not in store.applied_migrations()
    return store


def migrated(store: Store, monkeypatch: pytest.MonkeyPatch) -> Store:
    """The same store file opened with every migration (the old connection closed first)."""
    store.connection().close()
    monkeypatch.setattr(db, "MIGRATIONS_DIR", ALL_MIGRATIONS)
    return Store(store.path)
