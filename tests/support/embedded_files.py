"""The embedded server's files and graphs, as the persistence and crash-recovery tests touch them: raw
queries on its socket, the append-only files, and a fingerprint of every data file."""

from __future__ import annotations

import hashlib
import os
import signal
import time
from pathlib import Path

from pipeline.graph.embedded.status import pid_alive
from pipeline.graph.embedded_falkordb import EmbeddedFalkorDB
from tests.support.redis_client import redis_client


def query(server: EmbeddedFalkorDB, graph: str, cypher: str) -> list[object]:
    """The raw reply: [header, rows, statistics] for a read, [statistics] for a write."""
    client = redis_client(unix_socket_path=str(server.socket_path))
    try:
        return client.execute_command("GRAPH.QUERY", graph, cypher)  # type: ignore[no-any-return]
    finally:
        client.close()


def fill(server: EmbeddedFalkorDB, graph: str, nodes: int, start: int = 0) -> None:
    for i in range(start, start + nodes):
        query(server, graph, f"CREATE (:N {{i: {i}, text: 'passage {i} ' + '{'x' * 40}'}})")
    query(server, graph, f"MATCH (a:N), (b:N) WHERE b.i = a.i + 1 AND a.i >= {start} CREATE (a)-[:NEXT]->(b)")


def count(server: EmbeddedFalkorDB, graph: str) -> int:
    return int(query(server, graph, "MATCH (n) RETURN count(n)")[1][0][0])  # type: ignore[index]


def aof(data: Path, kind: str) -> Path:
    """The one file of appendonlydir/ whose name ends with `kind` ('.base.rdb', '.incr.aof')."""
    (found,) = [p for p in (data / "appendonlydir").iterdir() if p.name.endswith(kind)]
    return found


def newest_incr(data: Path) -> Path:
    return max((data / "appendonlydir").glob("*.incr.aof"), key=lambda p: int(p.name.split(".")[2]))


def fingerprint(data: Path) -> dict[str, str]:
    """sha256 of every data file (not logs, locks or the supervisor's status)."""
    keep = [data / "dump.rdb", data / "falkordb.state.json", *(data / "appendonlydir").glob("*")]
    return {str(p.relative_to(data)): hashlib.sha256(p.read_bytes()).hexdigest() for p in keep if p.is_file()}


def kill_server(server: EmbeddedFalkorDB, deadline_s: float = 60.0) -> None:
    """SIGKILL the client's redis-server, wait until it and its supervisor are gone, let go of the lease."""
    assert server.process is not None
    pids = server.process
    os.kill(pids.pid, signal.SIGKILL)
    deadline = time.monotonic() + deadline_s
    while pid_alive(pids.pid) or pid_alive(pids.supervisor):
        assert time.monotonic() < deadline, "the killed server's processes did not go away"
        time.sleep(0.02)
    server.release()
