"""The supervisor's word to the client that started it: `falkordb.status.json`, replaced atomically.

A start is named by a nonce the client passes, so a status left by an earlier supervisor is never read as
the answer to this one. A supervisor whose redis-server died may still be writing its last word while a new
one starts: `publish` reads, checks and replaces under a lock, so the old word never covers the new.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass

from pipeline.graph.embedded.locks import holding
from pipeline.graph.embedded.paths import ServerFiles

STARTING, READY, REFUSED, FAILED, STOPPED = "starting", "ready", "refused", "failed", "stopped"


@dataclass
class Status:
    nonce: str
    state: str
    supervisor: int
    redis: int | None = None
    message: str = ""


def publish(files: ServerFiles, status: Status, claim: bool = False) -> None:
    """Write the status if it is a supervisor's first word (`claim`) or the file still holds its nonce."""
    with holding(files.status_lock, 10.0, "the supervisor status"):
        current = read_status(files)
        if not claim and current is not None and current.nonce != status.nonce:
            return  # a newer supervisor owns the directory now: its client waits for its word, not ours
        write_status(files, status)


def write_status(files: ServerFiles, status: Status) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".falkordb.status.", dir=files.data_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(asdict(status), handle)
        os.replace(tmp, files.status)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_status(files: ServerFiles) -> Status | None:
    try:
        raw = json.loads(files.status.read_text(encoding="utf-8"))
        return Status(**raw)
    except (OSError, ValueError, TypeError):
        return None


def pid_alive(pid: int | None) -> bool:
    """Whether the process exists and is not a zombie (a dead child nobody has reaped yet)."""
    if not pid:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")
