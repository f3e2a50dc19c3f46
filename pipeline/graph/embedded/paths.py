"""The embedded server's files in the data directory (all 0600, the directory 0700)."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path


def sync_dir(path: Path) -> None:
    """fsync a directory, so a file just created or renamed in it survives a power cut (best effort)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@dataclass(frozen=True)
class ServerFiles:
    """Where each of the embedded server's files lives, for one data directory."""

    data_dir: Path

    @property
    def socket(self) -> Path:
        return self.data_dir / "falkordb.sock"

    @property
    def log(self) -> Path:  # redis-server's log
        return self.data_dir / "falkordb.log"

    @property
    def supervisor_log(self) -> Path:  # the supervisor's stderr: a crash, never routine
        return self.data_dir / "falkordb.supervisor.log"

    @property
    def start_lock(self) -> Path:  # held while a client probes and, if need be, starts the server
        return self.data_dir / "falkordb.lock"

    @property
    def lease(self) -> Path:  # every client holds it shared for as long as it uses the server
        return self.data_dir / "falkordb.lease"

    @property
    def server_lock(self) -> Path:  # the supervisor's, inherited by redis-server: one server per directory
        return self.data_dir / "falkordb.server.lock"

    @property
    def status(self) -> Path:  # the supervisor's word to the client that started it
        return self.data_dir / "falkordb.status.json"

    @property
    def status_lock(self) -> Path:  # held while a supervisor reads, checks and replaces the status
        return self.data_dir / "falkordb.status.lock"

    @property
    def state(self) -> Path:  # the append-only files and graph counts as last recorded
        return self.data_dir / "falkordb.state.json"

    @property
    def aof_dir(self) -> Path:
        return self.data_dir / "appendonlydir"

    @property
    def manifest(self) -> Path:
        return self.aof_dir / "appendonly.aof.manifest"

    @property
    def rdb(self) -> Path:
        return self.data_dir / "dump.rdb"
