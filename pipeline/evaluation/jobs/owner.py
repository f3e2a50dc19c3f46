"""Which process runs a job, and whether it is still alive.

A job row names its owner as "host:pid:token", the token drawn once per process: a pid reused by a later
process on the same host is not mistaken for the owner. A job whose owner is gone (the server stopped,
was killed, or the CLI was interrupted) is no longer running, whatever its row says.
"""

from __future__ import annotations

import os
import socket
import uuid

_TOKEN = uuid.uuid4().hex[:12]


def this_process() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{_TOKEN}"


def owner_alive(owner: str) -> bool:
    """False when the owner is certainly gone: this host, and its pid no longer runs or is this process with
    another token (a process this one replaced). Another host's process cannot be checked: taken as alive."""
    host, _, rest = owner.partition(":")
    pid_text, _, token = rest.partition(":")
    if host != socket.gethostname():
        return True
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    if pid == os.getpid():
        return token == _TOKEN
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True
