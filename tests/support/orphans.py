"""Servers a test session starts never outlive it: a pytest stopped by SIGTERM or SIGKILL (a timed-out CI job, a
killed run) runs no fixture's teardown, and a Streamlit server left behind keeps its data directory's lease."""

from __future__ import annotations

import ctypes
import signal

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent() -> None:
    """`preexec_fn` of a child process: the kernel sends it SIGTERM when the process that started it ends."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
