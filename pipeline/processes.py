"""Which process owns a row (a sweep job, an import in progress), and whether that process is still alive.

A row names its owner as "host:pid:token". The token is the process's start time as the kernel keeps it
(`/proc/PID/stat`, field 22, in clock ticks since boot), so a pid reused by a later process on the same host
is told apart from the owner: same pid, another start time. Where /proc is missing, a random token drawn
once per process stands in (a reused pid then reads as alive). Another host's process cannot be checked.
"""

from __future__ import annotations

import os
import socket
import uuid
from pathlib import Path

_FALLBACK = "u" + uuid.uuid4().hex[:12]  # never all digits: not mistaken for a start time


def _stat(pid: int) -> tuple[str, str] | None:
    """(state, start time) of a running pid from /proc, None when there is no such process (or no /proc)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may hold spaces: split after its closing one
    fields = text[text.rfind(")") + 2 :].split()
    return fields[0], fields[19]  # state (field 3), starttime (field 22)


def _token(pid: int) -> str:
    stat = _stat(pid)
    return stat[1] if stat else _FALLBACK


_PID = os.getpid()
_HOST = socket.gethostname()
_OWN = f"{_HOST}:{_PID}:{_token(_PID)}"


def this_process() -> str:
    if os.getpid() != _PID:  # a forked child is another process
        return f"{_HOST}:{os.getpid()}:{_token(os.getpid())}"
    return _OWN


def parse(owner: str) -> tuple[str, int | None, str]:
    """(host, pid, token) of an owner string; pid None when it is not a number."""
    host, _, rest = owner.partition(":")
    pid_text, _, token = rest.partition(":")
    try:
        return host, int(pid_text), token
    except ValueError:
        return host, None, token


def describe(owner: str) -> str:
    """ "pid 4242 on host-a", for the line that says a process is gone."""
    host, pid, _ = parse(owner)
    return f"pid {pid if pid is not None else '?'} on {host or '?'}"


def owner_alive(owner: str) -> bool:
    """False when the owner is certainly gone: on this host, its pid runs no more, runs as a zombie (killed,
    not yet reaped), or runs another process (another start time: the pid was reused). A process of another
    host is taken as alive."""
    host, pid, token = parse(owner)
    if host != socket.gethostname():
        return True
    if pid is None:
        return False
    if owner == this_process():
        return True
    if pid == os.getpid():
        return False  # this pid with another token: a process before this one
    stat = _stat(pid)
    if stat is not None:
        state, started = stat
        if state in ("Z", "X"):
            return False
        return started == token if token.isdigit() else True  # a random token: the start time is unknown
    if Path("/proc/self/stat").exists():  # /proc works and has no such pid
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True
