"""The admin lock: exclusive across processes and coroutines, refused in one line after its timeout, released
by the kernel when its holder is killed; and recovery leaves nothing open when there is nothing to do."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.journal.kinds import boundaries, load_kinds
from pipeline.journal.lock import LOCK_FILE, AdminBusy, admin_lock, try_admin_lock

HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(60)
"""


async def test_a_second_holder_waits_then_is_refused_in_one_line(tmp_path: Path) -> None:
    async with admin_lock(tmp_path):
        with pytest.raises(AdminBusy) as refused:
            async with admin_lock(tmp_path, timeout=0.2):
                pytest.fail("two holders at once")
        assert "\n" not in str(refused.value) and "nothing was changed" in str(refused.value)
    async with admin_lock(tmp_path, timeout=0.2):  # free again once released
        pass
    assert (tmp_path / LOCK_FILE).stat().st_mode & 0o077 == 0


async def test_a_killed_holder_releases_the_lock(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path / LOCK_FILE)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(AdminBusy):
            async with admin_lock(tmp_path, timeout=0.3):
                pass
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=60)  # reaped: the kernel closed its descriptor, and with it the lock
        with try_admin_lock(tmp_path) as taken:  # free right now, without waiting: no clock involved
            assert taken
        async with admin_lock(tmp_path, timeout=60):  # and the waiting way takes it too (60 s: only if stuck)
            pass
    finally:
        holder.kill()
        holder.wait()


def test_every_kind_begins_and_commits_around_its_steps() -> None:
    kinds = load_kinds()
    assert {"fact.correct", "fact.undo_correct", "merge", "merge.undo", "merge.reject", "deal.reset_demo"} <= set(kinds)
    for name, kind in kinds.items():
        assert boundaries(name) == ("begun", *kind.steps, "committed")
        assert len(set(kind.steps)) == len(kind.steps)
