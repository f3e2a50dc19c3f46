"""OS file locks (flock) in the data directory. The kernel drops them when their holder dies, kill -9
included, so no lock outlives its process and none needs cleaning up.

flock locks belong to an open file description: two opens in one process are two holders (each Lab is a
client of its own), and a child inherits one only if it is handed the descriptor (redis-server is given
the server lock on purpose; Python opens everything else close-on-exec).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

POLL_S = 0.02


class FileLock:
    """One open of a lock file; `acquire` takes it shared or exclusive, `release` (or closing) lets go."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    @property
    def fd(self) -> int:
        if self._fd is None:
            raise RuntimeError(f"{self.path.name} is not held")
        return self._fd

    def try_acquire(self, shared: bool = False) -> bool:
        """Take the lock if nobody is in the way; False (holding nothing) otherwise."""
        if self._fd is not None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def acquire(self, timeout_s: float, shared: bool = False) -> bool:
        """Wait up to `timeout_s` for the lock; False if it did not come."""
        deadline = time.monotonic() + timeout_s
        while not self.try_acquire(shared):
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_S)
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the last descriptor of the open file drops the lock

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.release()


def is_free(path: Path, shared: bool = False) -> bool:
    """Whether nobody holds the lock in a way that would block us (we take it for an instant)."""
    probe = FileLock(path)
    if not probe.try_acquire(shared):
        return False
    probe.release()
    return True


@contextlib.contextmanager
def holding(path: Path, timeout_s: float, what: str) -> Iterator[FileLock]:
    """Hold an exclusive lock for a block; TimeoutError naming `what` if it does not come in time."""
    lock = FileLock(path)
    if not lock.acquire(timeout_s):
        raise TimeoutError(f"{what} is held by another process ({path.name}) for more than {timeout_s:.0f} s")
    try:
        yield lock
    finally:
        lock.release()
