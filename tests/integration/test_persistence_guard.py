"""The embedded server starts only from the files it last left behind: each file damaged in turn is
refused with one line naming it (the CLI: exit 2), redis-server is not left running, and every file is
byte-identical afterwards. Kills and rewrites that lose nothing still start."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.errors import BackendUnavailable
from pipeline.graph.embedded.paths import ServerFiles
from pipeline.graph.embedded.persistence import PersistenceRefused
from pipeline.graph.embedded.status import pid_alive
from pipeline.graph.embedded_falkordb import EmbeddedFalkorDB
from pipeline.settings import PROJECT_ROOT
from tests.support.embedded_files import aof, count, fill, fingerprint, query
from tests.support.redis_client import redis_client

GRAPHS = {"alpha": 40, "beta": 25}  # graph -> nodes, each with one edge to the next


def _rewrite(server: EmbeddedFalkorDB) -> None:
    client = redis_client(unix_socket_path=str(server.socket_path))
    try:
        client.execute_command("BGREWRITEAOF")
        while (
            client.info("persistence")["aof_rewrite_in_progress"] or client.info("persistence")["aof_rewrite_scheduled"]
        ):
            time.sleep(0.05)
    finally:
        client.close()


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory stopped cleanly: a base RDB (after a rewrite) plus an incremental AOF with more."""
    data = tmp_path_factory.mktemp("pristine") / "data"
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    fill(server, "alpha", GRAPHS["alpha"])
    _rewrite(server)
    fill(server, "beta", GRAPHS["beta"])
    server.stop()
    assert not server.is_running()
    record = json.loads(ServerFiles(data).state.read_text())
    assert record["clean"] and record["counts"] == {"alpha": [40, 39], "beta": [25, 24]}
    return data


@pytest.fixture
def data(pristine: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(pristine, copy)
    return copy


def _flip_middle_byte(path: Path) -> None:
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0x20
    path.write_bytes(bytes(raw))


def _truncate(path: Path, by: int = 7) -> None:
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size - by)


def _aof_moved_away_rdb_left(data: Path) -> None:
    shutil.copy(aof(data, ".base.rdb"), data / "dump.rdb")
    shutil.move(data / "appendonlydir", data.parent / "moved-appendonlydir")


def _edit_counts(data: Path) -> None:
    state = data / "falkordb.state.json"
    record = json.loads(state.read_text())
    record["counts"]["alpha"] = [41, 39]
    state.write_text(json.dumps(record))


def _forget_record(damage: Callable[[Path], None]) -> Callable[[Path], None]:
    def both(data: Path) -> None:
        (data / "falkordb.state.json").unlink()
        damage(data)

    return both


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "aof missing, rdb present": (_aof_moved_away_rdb_left, "dump.rdb exists but"),
    "aof dir missing, recorded": (lambda d: shutil.rmtree(d / "appendonlydir"), "appendonlydir/ is missing"),
    "manifest missing": (lambda d: (d / "appendonlydir" / "appendonly.aof.manifest").unlink(), "manifest"),
    "manifest garbage": (
        lambda d: (d / "appendonlydir" / "appendonly.aof.manifest").write_text("file x seq\n"),
        "appendonly.aof.manifest line 1",
    ),
    "manifest names a missing file": (
        lambda d: aof(d, ".incr.aof").rename(d / "appendonlydir" / "elsewhere"),
        "listed in the manifest but missing",
    ),
    "base rdb changed": (lambda d: _flip_middle_byte(aof(d, ".base.rdb")), ".base.rdb was changed"),
    "incr aof changed": (lambda d: _flip_middle_byte(aof(d, ".incr.aof")), ".incr.aof was changed"),
    "incr aof truncated": (lambda d: _truncate(aof(d, ".incr.aof")), ".incr.aof is shorter than recorded"),
    "incr aof grew after a clean stop": (
        lambda d: aof(d, ".incr.aof").open("ab").write(b"*1\r\n$4\r\nPING\r\n"),
        "grew after a clean stop",
    ),
    "state file damaged": (lambda d: (d / "falkordb.state.json").write_text("{"), "falkordb.state.json is damaged"),
    "loaded counts differ": (_edit_counts, "graph 'alpha' loaded from"),
    "no record, base rdb changed": (
        _forget_record(lambda d: _flip_middle_byte(aof(d, ".base.rdb"))),
        "could not load",
    ),
}


def _cli_status(data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data), "RETRIEVAL_LAB_EMBEDDER": "local"}
    return subprocess.run(
        [sys.executable, "-m", "pipeline", "status"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True
    )


@pytest.mark.parametrize("case", list(DAMAGE))
def test_each_damaged_file_is_refused_and_left_as_it_was(data: Path, case: str) -> None:
    damage, expected = DAMAGE[case]
    damage(data)
    before = fingerprint(data)
    server = EmbeddedFalkorDB(data)
    with pytest.raises(PersistenceRefused) as refused:  # a BackendUnavailable: one line on a page
        server.ensure_running()
    message = str(refused.value)
    assert "\n" not in message and expected in message, message
    assert "nothing was changed" in message and "python -m pipeline restore" in message
    assert "docs/recovery.md" in message and "empty" not in message  # never advice that drops intact data
    assert not server.is_running()
    assert server.process is None and server.stop() is None  # holds nothing

    done = _cli_status(data)  # the same refusal through the CLI: one line, exit 2
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0] == f"error: {message}", done.stderr
    assert not server.is_running()
    assert fingerprint(data) == before


def test_a_clean_copy_starts_with_everything(data: Path) -> None:
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    try:
        assert {g: count(server, g) for g in GRAPHS} == GRAPHS
    finally:
        server.stop()


@pytest.mark.parametrize("victim", ["redis", "supervisor"])
def test_a_kill_after_more_writes_still_starts_with_everything(data: Path, victim: str) -> None:
    """The incremental file grows past its record after a kill: its recorded prefix is intact, so it loads."""
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    assert server.process is not None
    pids = server.process
    fill(server, "beta", 10, start=100)
    os.kill(pids.pid if victim == "redis" else pids.supervisor, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while (pid_alive(pids.pid) or pid_alive(pids.supervisor)) and time.monotonic() < deadline:
        time.sleep(0.05)
    server.release()
    again = EmbeddedFalkorDB(data)
    again.ensure_running()
    try:
        assert count(again, "beta") == GRAPHS["beta"] + 10 and count(again, "alpha") == GRAPHS["alpha"]
    finally:
        again.stop()


def test_a_rewrite_is_recorded_so_a_kill_after_it_still_starts(data: Path) -> None:
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    assert server.process is not None
    pids = server.process
    fill(server, "gamma", 5)
    _rewrite(server)
    files = ServerFiles(data)
    deadline = time.monotonic() + 60  # the supervisor notices the new manifest within a poll (0.2 s when quiet)
    while json.loads(files.state.read_text())["manifest"] != files.manifest.read_text():
        assert time.monotonic() < deadline, "the rewrite was never recorded"
        time.sleep(0.05)
    os.kill(pids.supervisor, signal.SIGKILL)
    while pid_alive(pids.pid):
        time.sleep(0.05)
    server.release()
    again = EmbeddedFalkorDB(data)
    again.ensure_running()
    try:
        assert count(again, "gamma") == 5 and count(again, "alpha") == GRAPHS["alpha"]
    finally:
        again.stop()


def test_a_refusal_is_a_backend_error(data: Path) -> None:
    """The CLI turns BackendUnavailable into one line and exit 2; the dashboard into one line."""
    (data / "falkordb.state.json").write_text("[]")
    with pytest.raises(BackendUnavailable):
        EmbeddedFalkorDB(data).ensure_running()


def test_a_dump_rdb_beside_the_append_only_files_is_never_written(data: Path) -> None:
    """An older layout kept RDB snapshots too: they are neither loaded nor ever overwritten now."""
    snapshot = data / "dump.rdb"
    shutil.copy(aof(data, ".base.rdb"), snapshot)
    before = hashlib.sha256(snapshot.read_bytes()).hexdigest()
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    fill(server, "delta", 3)
    client = redis_client(unix_socket_path=str(server.socket_path))
    assert client.config_get("save") == {"save": ""}
    client.close()
    server.stop()
    assert hashlib.sha256(snapshot.read_bytes()).hexdigest() == before


def test_the_server_runs_without_falkordbs_query_log(data: Path) -> None:
    """The query log's timer task can break a lock while the module loads, and redis-server then hangs for
    good in its first graph's load (`python -m benchmarks server-starts` counts such starts): it is off, and
    no stream of queries lands among the graphs."""
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    try:
        fill(server, "delta", 3)
        client = redis_client(unix_socket_path=str(server.socket_path))
        try:
            assert client.execute_command("GRAPH.CONFIG", "GET", "CMD_INFO") == [b"CMD_INFO", 0]
            assert sorted(client.keys()) == [b"alpha", b"beta", b"delta"]
        finally:
            client.close()
    finally:
        server.stop()


def test_damage_in_what_was_appended_before_a_crash_is_refused(data: Path) -> None:
    """The incremental file's growth is recorded as the server runs: after a kill -9, bytes changed in what
    was appended (here inside a stored text, which redis itself would load without a word) are refused."""
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    assert server.process is not None
    pids = server.process
    query(server, "beta", "CREATE (:N {text: 'MARKER-appended-while-running'})")
    incr = aof(data, ".incr.aof")
    marker = incr.read_bytes().index(b"MARKER-appended")
    state = ServerFiles(data).state
    deadline = time.monotonic() + 60
    while json.loads(state.read_text())["files"][incr.name]["size"] <= marker:
        assert time.monotonic() < deadline, "the growth was never recorded"
        time.sleep(0.1)
    os.kill(pids.pid, signal.SIGKILL)
    while pid_alive(pids.pid) or pid_alive(pids.supervisor):
        time.sleep(0.05)
    server.release()
    raw = bytearray(incr.read_bytes())
    raw[marker + 2] ^= 0x20  # MARKER -> MArKER: still a valid command
    incr.write_bytes(bytes(raw))
    before = fingerprint(data)
    with pytest.raises(PersistenceRefused, match=r"\.incr\.aof was changed"):
        EmbeddedFalkorDB(data).ensure_running()
    assert fingerprint(data) == before
