"""`python -m pipeline backup DIR` / `restore DIR`: restore-and-compare on the real embedded FalkorDB.

A deal with an audited correction is backed up, changed again, and restored into a fresh data directory: the
graph (tests/support/dump.py), every table of the store and the audit log are the backed-up state, and the
restored server starts from the restored files (the persistence check passes)."""

from __future__ import annotations

import asyncio
import sqlite3
import stat
from collections.abc import AsyncIterator, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pipeline.audit import audit_log
from pipeline.backup.layout import BACKUP_MANIFEST
from pipeline.backup.restore import data_present
from pipeline.cli import main
from pipeline.corrections.actions import CorrectionRequest, correct_fact
from pipeline.lab import Lab
from pipeline.settings import get_settings
from pipeline.store import open_store, store_path
from tests.conftest import FIXTURES, make_settings
from tests.support.dump import dump_deal
from tests.support.falkordb_server import FalkorDBServer, falkordb_server  # noqa: F401

DEAL = "backup_mini"


@pytest.fixture
def data_dir_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Point the in-process CLI at a data directory (and back at the session's afterwards)."""

    def use(path: Path) -> None:
        monkeypatch.setenv("RETRIEVAL_LAB_DATA_DIR", str(path))
        get_settings.cache_clear()

    yield use
    monkeypatch.undo()
    get_settings.cache_clear()


@pytest.fixture
async def source(tmp_path: Path) -> AsyncIterator[Lab]:
    """A data directory of its own with a small deal (the BEIR fixture)."""
    from pipeline.ingest.beir import import_beir

    lab = await Lab.open(make_settings(tmp_path / "source"))
    await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, FIXTURES / "beir_mini", DEAL)
    yield lab
    await lab.close()
    if lab.backend.embedded:
        lab.backend.embedded.stop()


async def cli(argv: list[str]) -> int:
    """The command line, in a thread of its own: it runs its own event loop, as from a terminal."""
    return await asyncio.to_thread(main, argv)


def store_tables(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of a store file (read-only), in a stable order."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {n: sorted(conn.execute(f'SELECT * FROM "{n}"').fetchall(), key=repr) for n in names}
    finally:
        conn.close()


async def correct(lab: Lab, statement: str) -> None:
    fact = next(f for f in await lab.backend.cypher.facts(DEAL) if not f.get("invalid_at"))
    request = CorrectionRequest(fact["uuid"], statement, "qa_response", "Dana Whitfield (CFO)", date(2026, 4, 2))
    await correct_fact(lab, DEAL, request, "Ana")


def modes(root: Path) -> set[tuple[str, int]]:
    return {(p.name, stat.S_IMODE(p.stat().st_mode)) for p in [root, *root.rglob("*")]}


async def test_restore_gives_back_the_backed_up_graph_store_and_audit(
    source: Lab, tmp_path: Path, data_dir_env: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    await correct(source, "The first passage now says something else, per the CFO.")
    backup = tmp_path / "backup"
    data_dir_env(source.settings.resolved_data_dir)
    assert await cli(["backup", str(backup)]) == 0
    assert "the store and the embedded graph's append-only files" in capsys.readouterr().err
    assert {m for _, m in modes(backup)} <= {0o700, 0o600}
    graph_then = await dump_deal(source.backend, DEAL)
    tables_then = store_tables(store_path(source.settings.resolved_data_dir))
    audit_then = audit_log(source.store, DEAL)
    assert [e.action for e in audit_then] == ["fact.correct"]

    await correct(source, "A second correction, made after the backup.")  # must not come back
    assert await dump_deal(source.backend, DEAL) != graph_then

    fresh = tmp_path / "restored"
    data_dir_env(fresh)
    assert await cli(["restore", str(backup)]) == 0
    assert "restored the store and the embedded graph" in capsys.readouterr().err
    assert {m for _, m in modes(fresh / "appendonlydir")} <= {0o700, 0o600}
    assert stat.S_IMODE(store_path(fresh).stat().st_mode) == 0o600
    assert not [p for p in fresh.iterdir() if p.name.startswith(".")]  # no staging left behind
    assert store_tables(store_path(fresh)) == tables_then

    restored = await Lab.open(make_settings(fresh))  # the server starts from the restored files
    try:
        assert await dump_deal(restored.backend, DEAL) == graph_then
        assert audit_log(restored.store, DEAL) == audit_then
    finally:
        await restored.close()
        if restored.backend.embedded:
            restored.backend.embedded.stop()


async def test_restore_refuses_a_data_directory_holding_data_unless_forced_and_unused(
    source: Lab, tmp_path: Path, data_dir_env: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    target = source.settings.resolved_data_dir
    backup = tmp_path / "backup"
    data_dir_env(target)
    assert await cli(["backup", str(backup)]) == 0
    graph_then = await dump_deal(source.backend, DEAL)
    await correct(source, "A correction made after the backup.")
    capsys.readouterr()

    tables_now = store_tables(store_path(target))
    assert await cli(["restore", str(backup)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "already holds data" in err and "--force" in err and "\n" not in err
    assert await cli(["restore", str(backup), "--force"]) == 2  # the source Lab holds a lease on it
    err = capsys.readouterr().err.strip()
    assert "is in use" in err and "\n" not in err
    assert store_tables(store_path(target)) == tables_now  # nothing changed

    await source.close()
    assert source.backend.embedded is not None
    source.backend.embedded.stop()
    open_store.cache_clear()  # this process's connection to the store being replaced (as a stopped process's)
    assert await cli(["restore", str(backup), "--force"]) == 0
    line = capsys.readouterr().err.strip()
    [kept] = [p for p in target.iterdir() if p.name.startswith(".replaced-")]
    assert f"is kept in {kept}" in line and "\n" not in line
    assert not [p for p in target.iterdir() if p.name.startswith(".restore-")]
    assert store_tables(kept / "retrieval_lab.sqlite3") == tables_now  # the replaced data, never deleted
    assert (kept / "appendonlydir").is_dir()
    again = await Lab.open(make_settings(target))
    try:
        assert await dump_deal(again.backend, DEAL) == graph_then
        assert [e.action for e in audit_log(again.store, DEAL)] == []
    finally:
        await again.close()
        if again.backend.embedded:
            again.backend.embedded.stop()


async def test_a_damaged_backup_is_refused_before_anything_changes(
    source: Lab, tmp_path: Path, data_dir_env: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    backup = tmp_path / "backup"
    data_dir_env(source.settings.resolved_data_dir)
    assert await cli(["backup", str(backup)]) == 0
    assert await cli(["backup", str(backup)]) == 2  # never into a folder that holds something
    assert "give a new or empty folder" in capsys.readouterr().err
    base = next((backup / "appendonlydir").glob("*.base.rdb"))
    raw = bytearray(base.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    base.write_bytes(bytes(raw))
    fresh = tmp_path / "restored"
    data_dir_env(fresh)
    assert await cli(["restore", str(backup)]) == 2
    err = capsys.readouterr().err.strip()
    assert "sha256 differs" in err and "nothing was changed" in err and "\n" not in err
    assert data_present(fresh) == () and not [p for p in fresh.iterdir() if p.name.startswith(".restore-")]
    assert await cli(["restore", str(tmp_path)]) == 2
    assert f"no {BACKUP_MANIFEST}" in capsys.readouterr().err


async def test_backup_on_a_falkordb_server_holds_the_store_only_and_says_so(
    falkordb_server: FalkorDBServer,  # noqa: F811
    tmp_path: Path,
    data_dir_env: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FALKORDB_URI", falkordb_server.uri)
    data_dir_env(tmp_path / "server-data")
    backup = tmp_path / "backup"
    assert await cli(["backup", str(backup)]) == 0
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "the SQLite store only" in line and "FalkorDB server" in line and falkordb_server.password not in line
    assert sorted(p.name for p in backup.iterdir()) == [BACKUP_MANIFEST, "retrieval_lab.sqlite3"]
    data_dir_env(tmp_path / "restored")
    assert await cli(["restore", str(backup)]) == 0
    assert store_tables(store_path(tmp_path / "restored")) == store_tables(backup / "retrieval_lab.sqlite3")
