"""A server a test session starts ends with the session, even when pytest itself is killed (no teardown runs)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

PARENT = """
import subprocess, sys, time
from tests.support.orphans import die_with_parent
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], preexec_fn=die_with_parent)
print(child.pid, flush=True)
time.sleep(600)
"""


def running(pid: int) -> bool:
    """Alive and not a zombie waiting to be reaped (whoever adopts an orphan may reap it late)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_child_started_with_die_with_parent_ends_when_its_parent_is_killed() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert running(child)
    parent.kill()  # SIGKILL: the parent runs no teardown
    parent.wait()
    deadline = time.monotonic() + 60  # the kernel signals at once; the bound is for a stalled machine only
    while running(child):
        assert time.monotonic() < deadline, f"child {child} outlived its killed parent"
        time.sleep(0.05)
