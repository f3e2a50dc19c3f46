"""TEST HOOK: step-boundary fault injection for the journal's crash tests, and a pause for tests that act on an
action mid-run.

With `RETRIEVAL_LAB_FAILPOINT=<kind>:<step>:<kill-self|kill-server>` set, the process reaching that step
boundary of that kind of action SIGKILLs itself, or SIGKILLs the embedded graph server (the redis-server
serving this data directory) and carries on, so the next graph write fails as it would in production.
With `<kind>:<step>:pause`, an action awaiting `paused` at that step waits there while the file `PAUSE_FILE` is in
the data directory: a test holds it mid-run on a state it controls, not on how long the action happens to take.
Unset (always, outside tests) each costs one dictionary lookup.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from pathlib import Path

ENV = "RETRIEVAL_LAB_FAILPOINT"
KILL_SELF, KILL_SERVER, PAUSE = "kill-self", "kill-server", "pause"
PAUSE_FILE = "failpoint.pause"
PAUSE_POLL_S = 0.05


def server_pids(data_dir: Path) -> list[int]:
    """Pids of the redis-server processes whose command line names this data directory (its socket / --dir)."""
    needle = str(data_dir.resolve()).encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if b"redis-server" in cmdline.split(b"\0")[0] and needle in cmdline:
            pids.append(int(entry.name))
    return pids


def reached(kind: str, step: str, data_dir: Path) -> None:
    """Called at each step boundary of each journalled action."""
    wanted = os.environ.get(ENV)
    if not wanted:
        return
    w_kind, _, rest = wanted.partition(":")
    w_step, _, how = rest.partition(":")
    if (w_kind, w_step) != (kind, step):
        return
    if how == KILL_SERVER:
        for pid in server_pids(data_dir):
            os.kill(pid, signal.SIGKILL)
        return
    os.kill(os.getpid(), signal.SIGKILL)


async def paused(kind: str, step: str, data_dir: Path, released: Callable[[], bool]) -> None:
    """Called at a step boundary a test may hold: with `<kind>:<step>:pause` set, returns once `PAUSE_FILE` is gone
    from the data directory or `released()` is true (a cancel, say), awaiting without holding the event loop."""
    if os.environ.get(ENV) != f"{kind}:{step}:{PAUSE}":
        return
    gate = data_dir / PAUSE_FILE
    while gate.exists() and not released():
        await asyncio.sleep(PAUSE_POLL_S)
