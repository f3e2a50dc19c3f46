"""The store belongs to the graph it describes: an embedded graph holding deals whose store is gone, or a store
that is not a database, is refused in one line (exit 2) naming the store and how to restore it; nothing starts
on an empty store in its place. A fresh directory and an external graph with a fresh store start as ever."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli import main
from pipeline.graph.embedded_falkordb import EmbeddedFalkorDB
from pipeline.settings import get_settings
from pipeline.store.db import DB_NAME
from tests.support.falkordb_server import FalkorDBServer, falkordb_server  # noqa: F401
from tests.support.redis_client import redis_client

GRAPHITI_NODE = "CREATE (:Entity {uuid: 'e1', name: 'Acme', group_id: $g}), (:Episodic {uuid: 'p1', group_id: $g})"


@pytest.fixture
def data_dir_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    def use(path: Path) -> Path:
        monkeypatch.setenv("RETRIEVAL_LAB_DATA_DIR", str(path))
        get_settings.cache_clear()
        return path

    yield use
    monkeypatch.undo()
    get_settings.cache_clear()


async def cli(argv: list[str]) -> int:
    return await asyncio.to_thread(main, argv)


def embedded_deal(data: Path, group_id: str = "acme") -> None:
    """An embedded graph holding a deal (graphiti's node shape), written while the directory had no store."""
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    client = redis_client(unix_socket_path=str(server.socket_path))
    client.execute_command("GRAPH.QUERY", group_id, GRAPHITI_NODE.replace("$g", repr(group_id)))
    client.close()
    server.stop()


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("lost", ["deleted", "emptied"])
async def test_a_missing_store_under_an_embedded_graph_with_deals_is_refused(
    lost: str, tmp_path: Path, data_dir_env: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    data = data_dir_env(tmp_path / "data")
    embedded_deal(data)
    store = data / DB_NAME
    if lost == "emptied":  # what SQLite would take for a new database
        store.write_bytes(b"")
    assert await cli(["deals"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert str(store) in line and "is missing" in line and "'acme'" in line
    assert "python -m pipeline restore" in line and "python -m pipeline backup" in line
    assert not store.exists() or store.stat().st_size == 0  # no empty store was started in its place


async def test_a_fresh_embedded_directory_starts_a_store(
    tmp_path: Path, data_dir_env: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    data = data_dir_env(tmp_path / "fresh")
    assert await cli(["status"]) == 0
    assert (data / DB_NAME).stat().st_size > 0
    assert await cli(["status"]) == 0  # and keeps it
    assert "error" not in capsys.readouterr().err


async def test_an_external_graph_with_deals_starts_a_fresh_store(
    falkordb_server: FalkorDBServer,  # noqa: F811
    tmp_path: Path,
    data_dir_env: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    host, port, password = falkordb_server.address
    client = redis_client(host=host, port=port, password=password)
    client.execute_command("GRAPH.QUERY", "ext_store_deal", GRAPHITI_NODE.replace("$g", "'ext_store_deal'"))
    try:
        monkeypatch.setenv("FALKORDB_URI", falkordb_server.uri)
        data = data_dir_env(tmp_path / "fresh")
        assert await cli(["deals"]) == 0
        out = capsys.readouterr().out
        assert "ext_store_deal" in out and "graphiti" in out
        assert (data / DB_NAME).stat().st_size > 0
    finally:
        client.execute_command("GRAPH.DELETE", "ext_store_deal")
        client.close()


async def test_a_store_overwritten_with_garbage_is_one_line(
    tmp_path: Path, data_dir_env: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    data = data_dir_env(tmp_path / "data")
    embedded_deal(data)
    store = data / DB_NAME  # never opened by this process (SQLite shares an open file's state within one)
    garbage = os.urandom(65536)
    store.write_bytes(garbage)
    assert await cli(["status"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert str(store) in line and "is damaged" in line and "python -m pipeline restore" in line
    assert store.read_bytes() == garbage  # left as it was, for the person to look at
