"""A crash never strands the data: after redis-server is killed, the next start recovers by itself.

- a torn tail (the incomplete last command a killed writer leaves) is cut off, its bytes kept beside the
  append-only files, and one line says so (the CLI too, exit 0);
- damage that is not a torn tail is still refused, naming what is intact, never advising to start empty;
- a server killed while loading is no refusal: its files are intact and the next start loads them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pipeline.errors import BackendUnavailable
from pipeline.graph.embedded.paths import ServerFiles
from pipeline.graph.embedded.persistence import PersistenceRefused
from pipeline.graph.embedded.status import pid_alive
from pipeline.graph.embedded_falkordb import EmbeddedFalkorDB
from pipeline.journal.failpoint import server_pids
from pipeline.settings import PROJECT_ROOT
from tests.support.embedded_files import aof, count, fill, fingerprint, kill_server, newest_incr, query

# the first bytes of the command a killed server was writing: a GRAPH.QUERY cut inside its query text
BATCHES = 60
LOADED = "DB loaded from append only file"  # redis-server's log line once the whole load is done
TORN = b"*3\r\n$11\r\nGRAPH.QUERY\r\n$5\r\nalpha\r\n$48\r\nCREATE (:N {i: 999, text: 'never ackno"


@pytest.fixture
def crashed(tmp_path: Path) -> Path:
    """A data directory whose server was killed -9 while running, after 30 acknowledged nodes."""
    data = tmp_path / "data"
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    fill(server, "alpha", 30)
    kill_server(server)
    return data


def _status(data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data), "RETRIEVAL_LAB_EMBEDDER": "local"}
    return subprocess.run(
        [sys.executable, "-m", "pipeline", "status"], cwd=PROJECT_ROOT, env=env, capture_output=True, text=True
    )


def test_a_torn_tail_is_cut_off_kept_beside_and_said_once(crashed: Path) -> None:
    incr = newest_incr(crashed)
    whole = incr.read_bytes()
    with incr.open("ab") as handle:
        handle.write(TORN)
    done = _status(crashed)  # the CLI starts the server: it recovers, says so in one line, exits 0
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "incomplete last command" in line]
    assert len(said) == 1 and f"{len(TORN)} bytes were moved to" in said[0], done.stderr
    (kept,) = crashed.glob("falkordb.torn-tail.*")
    assert kept.read_bytes() == TORN and kept.stat().st_mode & 0o777 == 0o600
    assert str(kept) in said[0]
    assert incr.read_bytes() == whole  # cut exactly at the last whole command

    server = EmbeddedFalkorDB(crashed)
    server.ensure_running()
    try:
        assert count(server, "alpha") == 30  # every acknowledged write is there
        assert server.notice == ""  # nothing more to repair on a later start
        fill(server, "alpha", 5, start=30)  # and it goes on appending after the cut
    finally:
        server.stop()
    again = EmbeddedFalkorDB(crashed)
    again.ensure_running()
    try:
        assert count(again, "alpha") == 35
    finally:
        again.stop()


def test_a_torn_tail_is_cut_even_where_the_record_took_in_part_of_it(crashed: Path) -> None:
    """The growth record may end inside the command being written when the server died: the recorded
    prefix is intact (its sha256 checked), so the cut before it is still a torn tail, and the record
    follows the cut."""
    files = ServerFiles(crashed)
    incr = newest_incr(crashed)
    with incr.open("ab") as handle:
        handle.write(TORN)
    record = json.loads(files.state.read_text())
    size = incr.stat().st_size - len(TORN) // 2
    from pipeline.graph.embedded.persistence import digest

    record["files"][incr.name] = {"size": size, "sha256": digest(incr, size).sha256}
    files.state.write_text(json.dumps(record))
    server = EmbeddedFalkorDB(crashed)
    server.ensure_running()
    try:
        assert "incomplete last command" in server.notice
        assert count(server, "alpha") == 30
    finally:
        server.stop()


def test_a_torn_tail_without_a_record_is_cut_too(crashed: Path) -> None:
    ServerFiles(crashed).state.unlink()
    with newest_incr(crashed).open("ab") as handle:
        handle.write(TORN)
    server = EmbeddedFalkorDB(crashed)
    server.ensure_running()
    try:
        assert "incomplete last command" in server.notice and count(server, "alpha") == 30
    finally:
        server.stop()


def test_an_unfinished_transaction_at_the_end_is_cut_before_its_multi(crashed: Path) -> None:
    incr = newest_incr(crashed)
    whole = incr.read_bytes()
    multi = b"*1\r\n$5\r\nMULTI\r\n*3\r\n$11\r\nGRAPH.QUERY\r\n$5\r\nalpha\r\n$25\r\nCREATE (:N {i: 'in txn'})\r\n"
    with incr.open("ab") as handle:
        handle.write(multi)
    server = EmbeddedFalkorDB(crashed)
    server.ensure_running()
    try:
        assert count(server, "alpha") == 30 and f"{len(multi)} bytes" in server.notice
    finally:
        server.stop()
    assert incr.read_bytes() == whole


def test_damage_after_the_record_is_refused_naming_what_is_intact(crashed: Path) -> None:
    """Bytes no writer writes after the last whole command are damage, not a tail: refused, nothing cut."""
    with newest_incr(crashed).open("ab") as handle:
        handle.write(b"this is not a command\r\n" + TORN)
    before = fingerprint(crashed)
    with pytest.raises(PersistenceRefused) as refused:
        EmbeddedFalkorDB(crashed).ensure_running()
    message = str(refused.value)
    assert "\n" not in message and "could not load" in message
    assert "python -m pipeline restore" in message and "docs/recovery.md" in message and "empty" not in message
    assert fingerprint(crashed) == before and not list(crashed.glob("falkordb.torn-tail.*"))


def test_a_changed_file_names_the_files_that_are_intact(crashed: Path) -> None:
    base = aof(crashed, ".base.rdb")
    raw = bytearray(base.read_bytes())
    raw[len(raw) // 2] ^= 0x20
    base.write_bytes(bytes(raw))
    with pytest.raises(PersistenceRefused) as refused:
        EmbeddedFalkorDB(crashed).ensure_running()
    message = str(refused.value)
    assert f"{base.name} was changed" in message and f"intact: {newest_incr(crashed).name}" in message, message


def _grow_until_loading_takes_a_while(data: Path) -> None:
    """Enough written that replaying it takes a moment (the window in which the server is caught)."""
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    for batch in range(BATCHES):
        query(server, "big", f"UNWIND range(1, 1000) AS i CREATE (:N {{i: i, b: {batch}, text: 'passage ' + i}})")
    server.stop()


def _freeze_the_server_while_it_loads(data: Path) -> int | None:
    """SIGSTOP the directory's redis-server as soon as it exists; its pid if it had not finished loading."""
    log = ServerFiles(data).log
    loaded_before = log.read_text(errors="replace").count(LOADED) if log.exists() else 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for pid in server_pids(data):
            os.kill(pid, signal.SIGSTOP)
            loaded = log.read_text(errors="replace").count(LOADED) if log.exists() else 0
            return pid if loaded == loaded_before else None
        time.sleep(0.001)
    raise AssertionError("redis-server never started")


def test_a_server_killed_while_loading_is_no_refusal_and_the_next_start_loads(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _grow_until_loading_takes_a_while(data)
    for _attempt in range(10):  # each attempt catches the server loading, or finds it was faster than us
        before = fingerprint(data)
        errors: list[BaseException] = []
        client = EmbeddedFalkorDB(data)
        starting = threading.Thread(target=_start_into, args=(client, errors))
        starting.start()
        frozen = _freeze_the_server_while_it_loads(data)
        if frozen is None:  # it had loaded already: let it go and try again
            for pid in server_pids(data):
                os.kill(pid, signal.SIGCONT)
            starting.join()
            client.stop()
            continue
        os.kill(frozen, signal.SIGKILL)
        starting.join()
        (error,) = errors
        assert isinstance(error, BackendUnavailable) and not isinstance(error, PersistenceRefused), error
        message = str(error)
        assert "\n" not in message and "signal 9" in message and "load at the next start" in message, message
        assert "restore" not in message and "empty" not in message
        break
    else:
        pytest.fail("the server finished loading before it could be stopped, 10 times")
    assert fingerprint(data) == before  # nothing was written or cut
    again = EmbeddedFalkorDB(data)
    again.ensure_running()
    try:
        assert count(again, "big") == BATCHES * 1000
    finally:
        again.stop()
    assert not any(pid_alive(p) for p in server_pids(data))


def _start_into(client: EmbeddedFalkorDB, errors: list[BaseException]) -> None:
    try:
        client.ensure_running()
    except BaseException as exc:  # the test reads what the starting client was told
        errors.append(exc)
