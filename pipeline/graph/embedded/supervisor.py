"""The supervisor: the one process that owns a data directory's redis-server.

    python -m pipeline.graph.embedded.supervisor DATA_DIR NONCE

A client starts it (holding the start lock); it detaches into its own session, so neither Ctrl-C in the
client's terminal nor the client's death reaches it. It

1. takes the server lock (waiting while a previous redis-server still flushes its files) and hands it to
   redis-server, so the lock lives exactly as long as either of them: one server per directory;
2. checks the files against the last record (persistence.py) and refuses to start from anything else;
3. starts redis-server as its child, with PR_SET_PDEATHSIG: if the supervisor is killed, redis gets SIGTERM
   and shuts down cleanly (it never saves an RDB snapshot, see redis_process.py);
4. after a clean stop, checks the loaded graph counts against the recorded ones;
5. records the incremental file's growth every GROWTH_EVERY_S, so a crash leaves little unchecked tail;
6. every POLL_S, while holding the start lock, looks at the lease: when no client has held it for GRACE_S
   (at once when nudged with SIGUSR1 by a client that exits), it counts the graphs, SHUTDOWNs redis and
   records the files and counts as clean. SIGTERM stops it the same way. If redis dies, it exits too.

What happened goes to `falkordb.status.json` for the client that is waiting (status.py).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from pipeline.graph.dialects.falkordb_counts import FalkorCounts
from pipeline.graph.embedded import redis_process
from pipeline.graph.embedded.locks import FileLock
from pipeline.graph.embedded.paths import ServerFiles
from pipeline.graph.embedded.persistence import (
    GrowthDigest,
    PersistenceRefused,
    Snapshot,
    check_before_start,
    compare_counts,
    refusal,
    take_snapshot,
    write_record,
)
from pipeline.graph.embedded.status import (
    FAILED,
    READY,
    REFUSED,
    STARTING,
    STOPPED,
    Status,
    publish,
)

GRACE_S = 2.0  # a client may restart right away (one CLI command after another) without a reload
POLL_S = 0.2
GROWTH_EVERY_S = 2.0  # how often the incremental file's growth is recorded (persistence.GrowthDigest)
START_TIMEOUT_S = 120.0  # a large append-only file replays for a while (a 65 MB one took ~15 s)
SERVER_LOCK_WAIT_S = 60.0
SHUTDOWN_TIMEOUT_S = 60.0


class Supervisor:
    def __init__(self, files: ServerFiles, nonce: str) -> None:
        self.files = files
        self.nonce = nonce
        self.process: subprocess.Popen[bytes] | None = None
        self.stop_requested = False
        self.nudged = False
        self.recorded_manifest = ""
        self.growth: GrowthDigest | None = None
        self.ready = False  # until then the client waits for our verdict, which run() writes
        self.growth_due = 0.0

    def _status(self, state: str, message: str = "", claim: bool = False) -> None:
        redis_pid = self.process.pid if self.process is not None else None
        with contextlib.suppress(OSError, TimeoutError):  # the directory may be gone (a test's tmp dir)
            publish(self.files, Status(self.nonce, state, os.getpid(), redis_pid, message), claim)

    def _claim(self) -> None:
        """Our first word: the directory's status is ours from now on (each phase is said while it lasts, so
        a client that gives up names the one it gave up in)."""
        self._status(STARTING, "waiting for the previous redis-server to let go of the directory", claim=True)

    def _client(self) -> redis.Redis:
        # no retries: a SHUTDOWN ends in a dropped connection, which is the answer, not a fault to retry
        return redis.Redis(unix_socket_path=str(self.files.socket), socket_timeout=30, retry=Retry(NoBackoff(), 0))

    def counts(self) -> dict[str, list[int]]:
        """Nodes and edges of every graph, read-only."""
        client = self._client()
        try:
            found: dict[str, list[int]] = {}
            for raw in client.execute_command("GRAPH.LIST"):
                name = raw.decode() if isinstance(raw, bytes) else str(raw)
                found[name] = [
                    _scalar(client.execute_command("GRAPH.RO_QUERY", name, FalkorCounts.NODE_COUNT)),
                    _scalar(client.execute_command("GRAPH.RO_QUERY", name, FalkorCounts.EDGE_COUNT)),
                ]
            return found
        finally:
            client.close()

    def run(self) -> int:
        os.umask(0o077)
        server_lock = FileLock(self.files.server_lock)
        self._claim()
        if not server_lock.acquire(SERVER_LOCK_WAIT_S):
            self._status(FAILED, f"another redis-server still holds {self.files.server_lock}")
            return 1
        self._status(STARTING, "checking the append-only files")
        try:
            verdict = check_before_start(self.files)
        except PersistenceRefused as exc:
            self._status(REFUSED, str(exc))
            return 2
        self.process = redis_process.spawn(self.files, server_lock.fd)
        # the lock belongs to the open file description redis-server inherited: it stays held until
        # redis-server exits, whatever becomes of us, so we let go of our own descriptor
        server_lock.release()
        signal.signal(signal.SIGTERM, self._on_stop)
        signal.signal(signal.SIGINT, self._on_stop)
        signal.signal(signal.SIGUSR1, self._on_nudge)
        self._status(STARTING, "redis-server is loading the append-only files")
        problem = self._wait_until_loaded(had_files=verdict.snapshot is not None)
        if problem is not None:
            self._status(REFUSED if isinstance(problem, PersistenceRefused) else FAILED, str(problem))
            return 2
        if verdict.expected_counts is not None:
            self._status(STARTING, "counting the loaded graphs")
            try:
                compare_counts(self.files, verdict.expected_counts, self.counts())
            except PersistenceRefused as exc:
                self._shutdown(save_record=False)
                self._status(REFUSED, str(exc))
                return 2
        self._record(clean=False, counts=None)
        self._status(READY, " ".join(verdict.notes))
        self.ready = True
        return self._watch()

    def _wait_until_loaded(self, had_files: bool) -> Exception | None:
        assert self.process is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.stop_requested:
                self._shutdown(save_record=False)
                return RuntimeError("stopped while starting")
            if self.process.poll() is not None:
                if self.process.returncode < 0:  # killed from outside (kill -9, the OOM killer): not the files
                    return RuntimeError(
                        f"redis-server was stopped by signal {-self.process.returncode} before it had loaded "
                        f"{self.files.aof_dir}/; its files are as they were and load at the next start"
                    )
                reason = redis_process.last_log_line(self.files) or f"exit code {self.process.returncode}"
                reason = reason.split(". You can:")[0]  # redis's advice names options this tool does not offer
                if had_files:
                    return refusal(self.files, f"redis-server could not load {self.files.aof_dir}/ ({reason})")
                return RuntimeError(f"server did not start ({reason})")
            if redis_process.probe(self.files.socket) == "up":
                return None
            time.sleep(0.05)
        self._shutdown(save_record=False)
        return RuntimeError(f"server did not start (no answer within {START_TIMEOUT_S:.0f} s)")

    def _watch(self) -> int:
        assert self.process is not None
        idle_since: float | None = None
        while True:
            if self.stop_requested:
                self._shutdown(save_record=True)
                return 0
            if self.process.poll() is not None:
                self._status(STOPPED, f"redis-server exited with code {self.process.returncode}")
                return 1
            if not self.files.socket.exists():  # the directory was removed under us: nobody can reach us
                self._shutdown(save_record=False)
                return 0
            self._record_after_rewrite()
            self._record_growth()
            start_lock = FileLock(self.files.start_lock)
            if _try(start_lock):  # no client is probing or starting right now
                try:
                    lease = FileLock(self.files.lease)
                    if _try(lease):  # and none holds a lease
                        idle_since = idle_since if idle_since is not None else time.monotonic()
                        if self.nudged or time.monotonic() - idle_since >= GRACE_S:
                            self._shutdown(save_record=True)  # both locks held: nobody attaches meanwhile
                            return 0
                        lease.release()
                    else:
                        idle_since = None
                finally:
                    start_lock.release()
                self.nudged = False
            time.sleep(POLL_S)

    def _record(self, clean: bool, counts: dict[str, list[int]] | None) -> None:
        with contextlib.suppress(OSError, PersistenceRefused):
            snapshot: Snapshot | None = take_snapshot(self.files)
            if snapshot is not None:
                write_record(self.files, snapshot, clean, counts)
                self.recorded_manifest = snapshot.manifest
                self.growth = GrowthDigest(self.files, snapshot)

    def _record_growth(self) -> None:
        if self.growth is None or time.monotonic() < self.growth_due:
            return
        self.growth_due = time.monotonic() + GROWTH_EVERY_S
        with contextlib.suppress(OSError, PersistenceRefused):  # a rewrite swapped the files: recorded anew
            snapshot = self.growth.advance()
            if snapshot is not None and snapshot.manifest == self.recorded_manifest:
                write_record(self.files, snapshot, clean=False, counts=None)

    def _record_after_rewrite(self) -> None:
        """A finished AOF rewrite replaces the manifest and its files: record the new ones."""
        try:
            manifest = self.files.manifest.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return
        if manifest == self.recorded_manifest:
            return
        with contextlib.suppress(redis.RedisError, OSError):
            client = self._client()
            try:
                info = client.info("persistence")
            finally:
                client.close()
            if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
                self._record(clean=False, counts=None)

    def _shutdown(self, save_record: bool) -> None:
        """Stop redis-server: counts first, then SHUTDOWN (the AOF is flushed; no RDB is ever saved)."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        counts: dict[str, list[int]] | None = None
        if save_record:
            with contextlib.suppress(redis.RedisError, OSError):
                counts = self.counts()
        if self.files.socket.exists():
            with contextlib.suppress(redis.RedisError, OSError):
                client = self._client()
                try:
                    client.execute_command(*(["SHUTDOWN"] if save_record else ["SHUTDOWN", "NOSAVE"]))
                finally:
                    client.close()
        else:
            process.terminate()  # unreachable on its socket: SIGTERM is the same clean shutdown
        try:
            process.wait(timeout=SHUTDOWN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if save_record and process.returncode == 0:
            self._record(clean=counts is not None, counts=counts)
        if self.ready:
            self._status(STOPPED, "stopped")

    def _on_stop(self, signum: int, frame: FrameType | None) -> None:
        self.stop_requested = True

    def _on_nudge(self, signum: int, frame: FrameType | None) -> None:
        self.nudged = True


def _try(lock: FileLock) -> bool:
    try:
        return lock.try_acquire()
    except OSError:  # the directory is going away: the next round sees it
        return False


def _scalar(reply: Any) -> int:
    """The single number of a `RETURN count(...)` reply: [header, [[value]], statistics]."""
    return int(reply[1][0][0])


def main(argv: list[str]) -> int:
    data_dir, nonce = Path(argv[0]), argv[1]
    if os.fork():  # detach: the client reaps this parent at once and never has us as a zombie child
        os._exit(0)
    os.chdir("/")
    return Supervisor(ServerFiles(data_dir), nonce).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
