"""A graph server lost in the middle of a CLI command: one line naming the server and the lost connection,
exit 2 (not "unexpected ConnectionError", exit 1). A real second FalkorDB server is paused for writes, so the
command blocks on its first graph write; once the server shows that client blocked, it is killed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from pipeline.settings import PROJECT_ROOT
from tests.conftest import FIXTURES
from tests.support.falkordb_server import FalkorDBServer
from tests.support.redis_client import redis_client

DEADLINE_S = 120.0


@pytest.fixture
def server() -> Iterator[FalkorDBServer]:
    with FalkorDBServer() as started:  # one of its own: this test kills it
        yield started


def blocked_clients(client: redis.Redis) -> list[dict[str, str]]:
    """Clients the server holds back (CLIENT PAUSE): flag 'b'."""
    return [c for c in client.client_list() if "b" in c.get("flags", "")]


@pytest.mark.parametrize(
    ("argv", "where"),
    [
        (["deals"], "attaching: the first query on an existing graph"),
        (["import-beir", str(FIXTURES / "beir_mini"), "--group", "lost_mid"], "the command's first graph write"),
    ],
)
def test_a_server_killed_mid_command_is_one_line_and_exit_2(
    server: FalkorDBServer, tmp_path: Path, argv: list[str], where: str
) -> None:
    host, port, password = server.address
    client = redis_client(host=host, port=port, password=password)
    if argv[0] == "deals":
        client.execute_command("GRAPH.QUERY", "held", "CREATE (:Entity {uuid: 'e1', group_id: 'held'})")
    client.execute_command("CLIENT", "PAUSE", str(int(DEADLINE_S * 1000)), "WRITE")  # reads still answer
    env = {
        **os.environ,
        "FALKORDB_URI": server.uri,
        "RETRIEVAL_LAB_DATA_DIR": str(tmp_path / "data"),
        "RETRIEVAL_LAB_EMBEDDER": "local",
    }
    command = subprocess.Popen(
        [sys.executable, "-m", "pipeline", *argv],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + DEADLINE_S
        while not blocked_clients(client):  # the command is connected and waits on its graph query
            assert command.poll() is None, command.communicate()
            assert time.monotonic() < deadline, f"the command never reached {where}"
            time.sleep(0.02)
        assert server.process is not None
        server.process.kill()
        _, err = command.communicate(timeout=DEADLINE_S)
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
        client.close()
    errors = [line for line in err.replace("\r", "\n").splitlines() if line.strip() and "import lost_mid" not in line]
    assert command.returncode == 2, err
    assert len(errors) == 1, err  # no traceback, no logged query: one line
    assert errors[0].startswith(f"error: Lost the connection to FalkorDB server at falkor://{host}:{port} mid-way")
    assert password not in err
