"""Pausing Python's cyclic garbage collector while a search parses its results.

A first stage on a hub-heavy deal reads thousands of small values (a hub's facts, ids, lists); those
allocations trigger full collections of the whole heap, which measured 150-250 ms of a 50-60 ms walk on the
10,000-fact deal. Reference counting still frees everything at once; only cycles wait for the collector,
which runs again as soon as the last search in the process leaves. Under searches that overlap without a
break (a busy dashboard), a search that ends more than MAX_PAUSE_S after the pause began collects once, so
cyclic garbage stays bounded.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

MAX_PAUSE_S = 2.0

_lock = threading.Lock()
_holders = 0
_was_enabled = True
_paused_at = 0.0


@contextmanager
def collector_paused() -> Iterator[None]:
    """Re-entrant and shared by concurrent searches: the collector resumes (if it was on) when the last leaves."""
    global _holders, _was_enabled, _paused_at
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            _paused_at = time.monotonic()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        overdue = False
        with _lock:
            _holders -= 1
            if _holders == 0:
                if _was_enabled:
                    gc.enable()
            elif _was_enabled and time.monotonic() - _paused_at > MAX_PAUSE_S:
                overdue, _paused_at = True, time.monotonic()
        if overdue:
            gc.collect()
