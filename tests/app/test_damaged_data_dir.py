"""The dashboard on a data directory whose append-only files, or whose store, were damaged or lost: one line
saying which file and what to do, no traceback, and the files left exactly as they were."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.common import runtime
from pipeline.graph.embedded_falkordb import EmbeddedFalkorDB
from pipeline.settings import get_settings
from pipeline.store.db import DB_NAME
from tests.integration.test_attacks_integrity import filled_store, overwrite_middle
from tests.support.redis_client import redis_client
from tests.support.shown import shown


def _files(data: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (data / "appendonlydir").iterdir()}


@pytest.fixture
def damaged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    data = tmp_path / "data"
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    server.stop()  # a clean stop: files and counts recorded
    (base,) = (data / "appendonlydir").glob("*.base.rdb")
    raw = bytearray(base.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    base.write_bytes(bytes(raw))
    monkeypatch.setenv("RETRIEVAL_LAB_DATA_DIR", str(data))
    get_settings.cache_clear()
    runtime._lab.clear()
    yield data
    monkeypatch.undo()
    get_settings.cache_clear()
    runtime._lab.clear()


def test_a_damaged_file_is_one_line_on_the_page(app: AppTest, damaged: Path) -> None:
    before = _files(damaged)
    app.run()
    assert not app.exception
    [error] = [e.value for e in app.main.error]
    assert error.startswith("embedded FalkorDB refused to start:") and ".base.rdb was changed" in error
    assert "\n" not in error
    assert _files(damaged) == before
    assert not EmbeddedFalkorDB(damaged).is_running()


@pytest.fixture(params=["missing", "garbage", "mid-file"])
def lost_store(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A data directory whose embedded graph holds a deal, with its store missing or overwritten with garbage."""
    data = tmp_path / "data"
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    client = redis_client(unix_socket_path=str(server.socket_path))
    client.execute_command("GRAPH.QUERY", "acme", "CREATE (:Entity {uuid: 'e1', name: 'Acme', group_id: 'acme'})")
    client.close()
    server.stop()
    if request.param == "garbage":
        (data / DB_NAME).write_bytes(os.urandom(65536))
    if request.param == "mid-file":  # a sound store with 4 KB overwritten in its middle (SQLite's quick check)
        overwrite_middle(filled_store(data), os.urandom(4096))
    monkeypatch.setenv("RETRIEVAL_LAB_DATA_DIR", str(data))
    get_settings.cache_clear()
    runtime._lab.clear()
    yield data
    monkeypatch.undo()
    get_settings.cache_clear()
    runtime._lab.clear()


def test_a_missing_or_damaged_store_is_one_line_on_the_page(app: AppTest, lost_store: Path) -> None:
    store = lost_store / DB_NAME
    before = store.read_bytes() if store.exists() else None
    app.run()
    assert not app.exception
    [error] = [shown(e.value) for e in app.main.error]
    assert str(store) in error and ("is missing" in error if before is None else "is damaged" in error)
    assert "python -m pipeline restore" in error and "\n" not in error
    assert (store.read_bytes() if store.exists() else None) == before  # no empty store started in its place
    app.switch_page("app_pages/history.py")  # a page that reads the store alone
    app.run()
    assert not app.exception
    [error] = [shown(e.value) for e in app.main.error]
    assert str(store) in error
    assert (store.read_bytes() if store.exists() else None) == before
