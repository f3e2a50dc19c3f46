"""The admin lock: an OS-level exclusive lock on `admin.lock` in the data directory.

`fcntl.flock` belongs to the open file, so it excludes other processes (two dashboards, a dashboard and the
CLI) and other coroutines of this process alike, and the kernel drops it when its holder dies (kill -9
included): no stale lock to clean up. It is taken by polling with LOCK_NB in a worker thread, so the event
loop never blocks; past the timeout the action is refused with one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from pipeline.errors import RetrievalLabError

LOCK_FILE = "admin.lock"
DEFAULT_TIMEOUT = 20.0
_POLL = 0.05


class AdminBusy(RetrievalLabError):
    """Another admin action (in this or another process) held the data directory's admin lock too long."""


def _open(data_dir: Path) -> int:
    data_dir.mkdir(parents=True, exist_ok=True)
    return os.open(data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)


def _try(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _wait(fd: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not _try(fd):
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL)
    return True


@contextlib.asynccontextmanager
async def admin_lock(data_dir: Path, timeout: float = DEFAULT_TIMEOUT) -> AsyncIterator[None]:
    """Hold the data directory's admin lock; AdminBusy after `timeout` seconds of waiting."""
    fd = _open(data_dir)
    try:
        if not await asyncio.to_thread(_wait, fd, timeout):
            raise AdminBusy(
                f"Another admin action on {data_dir} is still running (waited {timeout:.0f} s); nothing was "
                "changed. Try again in a moment."
            )
        yield
    finally:
        os.close(fd)  # closing the file releases the lock


@contextlib.contextmanager
def try_admin_lock(data_dir: Path) -> Iterator[bool]:
    """Take the lock only if it is free right now; yields whether it was taken."""
    fd = _open(data_dir)
    try:
        yield _try(fd)
    finally:
        os.close(fd)
