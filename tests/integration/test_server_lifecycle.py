"""One embedded server per data directory, kept alive by its clients' leases; kill -9 of each party.

Clients are real processes (tests/support/embedded_client.py); every kill is a real SIGKILL. "Gone" means
no such process (or a zombie nobody reaps), checked through /proc.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.graph.embedded.status import pid_alive
from pipeline.graph.embedded_falkordb import EmbeddedFalkorDB
from pipeline.settings import PROJECT_ROOT
from tests.support.redis_client import redis_client

GONE_WITHIN_S = 60.0  # the supervisor's grace (2 s) plus a clean shutdown, on a busy machine


class Client:
    """One client process: started, its answer read, then released (stdin closed) or killed."""

    def __init__(self, data_dir: Path, write: str | None = None) -> None:
        args = [sys.executable, "-m", "tests.support.embedded_client", str(data_dir)]
        if write:
            args += ["--write", write]
        self.process = subprocess.Popen(
            args, cwd=PROJECT_ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self._answer: dict[str, int] | None = None

    def answer(self) -> dict[str, int]:
        if self._answer is None:
            assert self.process.stdout is not None
            line = self.process.stdout.readline()
            assert line, f"client exited with {self.process.wait()} before answering"
            self._answer = json.loads(line)
            assert "error" not in self._answer, self._answer
        return self._answer

    def release(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        assert self.process.wait(timeout=30) == 0

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[list[Client]]:
    started: list[Client] = []
    yield started
    for client in started:
        if client.process.poll() is None:
            client.kill()
    EmbeddedFalkorDB(tmp_path / "data").stop()  # whatever is left: stopped, not orphaned


def _wait(condition: object, timeout_s: float = GONE_WITHIN_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return bool(condition())  # type: ignore[operator]


def _nodes(data_dir: Path, graph: str) -> int:
    server = EmbeddedFalkorDB(data_dir)
    server.ensure_running()
    try:
        client = redis_client(unix_socket_path=str(server.socket_path))
        reply = client.execute_command("GRAPH.RO_QUERY", graph, "MATCH (n) RETURN count(n)")
        client.close()
        return int(reply[1][0][0])
    finally:
        server.stop()


def _supervisor_pids(data_dir: Path) -> set[int]:
    """Every live supervisor of this data directory: it records the clean stop after the server has exited."""
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0") if entry.name.isdigit() else []
        except OSError:
            continue
        named = any(str(data_dir).encode() in arg for arg in args)
        if b"pipeline.graph.embedded.supervisor" in args and named and pid_alive(int(entry.name)):
            found.add(int(entry.name))
    return found


def _redis_pids(data_dir: Path) -> set[int]:
    """Every live redis-server whose command line names this data directory."""
    found: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:  # redis-server retitles itself "<path> unixsocket:<socket>"
            comm = (entry / "comm").read_text().strip()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if comm == "redis-server" and str(data_dir).encode() in cmdline and pid_alive(int(entry.name)):
            found.add(int(entry.name))
    return found


def test_clients_started_together_share_exactly_one_server(tmp_path: Path, clients: list[Client]) -> None:
    data = tmp_path / "data"
    clients.extend(Client(data) for _ in range(5))
    answers = [c.answer() for c in clients]
    assert len({a["redis"] for a in answers}) == 1 and len({a["supervisor"] for a in answers}) == 1
    assert _redis_pids(data) == {answers[0]["redis"]}


def test_a_client_exiting_never_stops_the_server_under_another(tmp_path: Path, clients: list[Client]) -> None:
    data = tmp_path / "data"
    first = Client(data, write="g")
    clients.append(first)
    pids = first.answer()
    second = Client(data)
    clients.append(second)
    assert second.answer() == pids
    first.release()  # the one that started the server ends normally
    time.sleep(3)  # longer than the supervisor's grace
    assert pid_alive(pids["redis"]) and EmbeddedFalkorDB(data).is_running()
    second.release()
    assert _wait(lambda: not pid_alive(pids["redis"]) and not pid_alive(pids["supervisor"]))
    assert _nodes(data, "g") == 1  # stopped cleanly, nothing lost


def test_killed_clients_leave_no_orphan(tmp_path: Path, clients: list[Client]) -> None:
    data = tmp_path / "data"
    first, second = Client(data, write="g"), Client(data)
    clients.extend([first, second])
    pids = first.answer()
    assert second.answer() == pids
    first.kill()
    time.sleep(3)
    assert pid_alive(pids["redis"]) and pid_alive(pids["supervisor"]), "stopped while a client still held it"
    second.kill()
    assert _wait(lambda: not pid_alive(pids["redis"]) and not pid_alive(pids["supervisor"])), "orphaned server"
    assert _redis_pids(data) == set()
    assert _nodes(data, "g") == 1


def test_killed_supervisor_takes_redis_along_and_the_next_client_restarts_it(
    tmp_path: Path, clients: list[Client]
) -> None:
    data = tmp_path / "data"
    first = Client(data, write="g")
    clients.append(first)
    pids = first.answer()
    os.kill(pids["supervisor"], signal.SIGKILL)
    assert _wait(lambda: not pid_alive(pids["redis"])), "redis-server outlived its supervisor"
    second = Client(data)
    clients.append(second)
    again = second.answer()
    assert again["redis"] != pids["redis"] and pid_alive(again["redis"])
    second.release()
    first.release()
    assert _wait(lambda: not pid_alive(again["redis"]) and not pid_alive(again["supervisor"]))
    assert _nodes(data, "g") == 1


def test_killed_redis_is_restarted_by_the_next_client(tmp_path: Path, clients: list[Client]) -> None:
    data = tmp_path / "data"
    first = Client(data, write="g")
    clients.append(first)
    pids = first.answer()
    os.kill(pids["redis"], signal.SIGKILL)
    assert _wait(lambda: not pid_alive(pids["supervisor"])), "the supervisor outlived its redis-server"
    second = Client(data, write="g")
    clients.append(second)
    again = second.answer()
    assert again["redis"] != pids["redis"]
    second.release()
    first.release()
    assert _nodes(data, "g") == 2


def test_files_are_private(tmp_path: Path, clients: list[Client]) -> None:
    data = tmp_path / "data"
    first = Client(data, write="g")
    clients.append(first)
    first.answer()
    first.release()
    # the server and its supervisor gone: the supervisor writes the clean-stop record (through a temp file) last
    assert _wait(lambda: not _redis_pids(data) and not _supervisor_pids(data))
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    paths = [p for p in data.rglob("*")]
    assert any(p.suffix == ".aof" for p in paths) and any(p.name == "falkordb.log" for p in paths)
    for path in paths:
        expected = 0o700 if path.is_dir() else 0o600
        assert stat.S_IMODE(path.stat().st_mode) == expected, path


def test_a_cli_command_killed_mid_import_leaves_no_server(tmp_path: Path) -> None:
    """The reported attack: kill -9 of the CLI used to leave its redis-server running forever."""
    data = tmp_path / "data"
    env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(data), "RETRIEVAL_LAB_EMBEDDER": "local"}
    fixture = PROJECT_ROOT / "tests" / "fixtures" / "beir_mini"
    cli = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "import-beir", str(fixture), "--group", "killed"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    status = data / "falkordb.status.json"
    assert _wait(lambda: status.exists() and json.loads(status.read_text())["state"] == "ready", 60)
    pids = json.loads(status.read_text())
    cli.send_signal(signal.SIGKILL)
    assert cli.wait(timeout=30) == -signal.SIGKILL
    assert _wait(lambda: not pid_alive(pids["redis"]) and not pid_alive(pids["supervisor"])), "orphaned server"
    assert _redis_pids(data) == set()


def test_a_data_dir_removed_under_the_server_stops_it(tmp_path: Path) -> None:
    """A test's temporary directory removed while its server runs: the server goes, promptly."""
    data = tmp_path / "data"
    server = EmbeddedFalkorDB(data)
    server.ensure_running()
    assert server.process is not None
    pids = server.process
    shutil.rmtree(data, ignore_errors=True)  # the lease is still held: only the missing socket tells
    assert _wait(lambda: not pid_alive(pids.pid) and not pid_alive(pids.supervisor)), "server outlived its dir"
    server.release()
