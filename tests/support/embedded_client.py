"""A client process of the embedded server, for lifecycle tests that kill processes with real signals.

    python -m tests.support.embedded_client DATA_DIR [--write GRAPH]

It takes a lease and makes sure the server runs (`EmbeddedFalkorDB.ensure_running`), optionally writes one
node to GRAPH, prints one JSON line {"redis": pid, "supervisor": pid}, then holds its lease until its
stdin closes (then exits normally) or it is killed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pipeline.graph.embedded_falkordb import EmbeddedFalkorDB
from tests.support.redis_client import redis_client


def main(argv: list[str]) -> int:
    server = EmbeddedFalkorDB(Path(argv[0]))
    try:
        server.ensure_running()
    except Exception as exc:
        print(json.dumps({"error": str(exc)}), flush=True)
        return 2
    assert server.process is not None
    if len(argv) > 2 and argv[1] == "--write":
        client = redis_client(unix_socket_path=str(server.socket_path))
        client.execute_command("GRAPH.QUERY", argv[2], "CREATE (:Written {by: 'client'})")
        client.close()
    print(json.dumps({"redis": server.process.pid, "supervisor": server.process.supervisor}), flush=True)
    sys.stdin.read()  # hold the lease until told to go
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
