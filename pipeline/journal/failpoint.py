"""TEST HOOK: step-boundary fault injection for the journal's crash tests.

With `RETRIEVAL_LAB_FAILPOINT=<kind>:<step>:<kill-self|kill-server>` set, the process reaching that step
boundary of that kind of action SIGKILLs itself, or SIGKILLs the embedded graph server (the redis-server
serving this data directory) and carries on, so the next graph write fails as it would in production.
Unset (always, outside tests) it costs one dictionary lookup.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

ENV = "RETRIEVAL_LAB_FAILPOINT"
KILL_SELF, KILL_SERVER = "kill-self", "kill-server"


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
