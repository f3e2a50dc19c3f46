"""The one event loop of the dashboard process, and the clients bound to it.

graphiti and the graph drivers bind to the loop they first ran on, so `asyncio.run` per rerun breaks
on the second rerun. One loop runs in a daemon thread for the whole process (held by
`st.cache_resource`); pages hand it coroutines through `run()` and never touch asyncio themselves.
Errors on a page become one clear message, never a stack trace (`page_guard`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import streamlit as st

from dashboard.common.text import md
from pipeline.api import Lab
from pipeline.errors import RetrievalLabError

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

T = TypeVar("T")
DEFAULT_TIMEOUT_S = 120.0
log = logging.getLogger("retrieval_lab")


@st.cache_resource(show_spinner=False)
def _loop() -> asyncio.AbstractEventLoop:
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="retrieval-lab-loop", daemon=True).start()
    return loop


def run(coro: Coroutine[Any, Any, T], timeout: float = DEFAULT_TIMEOUT_S) -> T:
    """Run a coroutine on the shared loop and wait for its result (at most `timeout` seconds)."""
    future = asyncio.run_coroutine_threadsafe(coro, _loop())
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise RetrievalLabError(
            f"This took longer than {timeout:.0f} s and was stopped; the server may be overloaded. Try again."
        ) from None


@st.cache_resource(show_spinner="Starting the graph backend…")
def _lab() -> Lab:
    return run(Lab.open())


def get_lab() -> Lab:
    """The process-wide Lab, reconnected first if its backend stopped answering (the embedded server
    is restarted); raises RetrievalLabError with one clear line when that is not possible."""
    lab = _lab()
    try:
        recovered = run(lab.recover())
    except RetrievalLabError:
        _lab.clear()  # start from scratch on the next rerun
        raise
    if recovered:
        st.toast(f"The graph backend had stopped answering ({md(recovered)}). Nothing acknowledged was lost.")
    return lab


@contextmanager
def page_guard() -> Iterator[None]:
    try:
        yield
    except RetrievalLabError as exc:
        st.error(md(exc), icon=":material/error:")
    except Exception as exc:  # the trace goes to the server log, the page shows one line
        log.exception("page failed")
        st.error(f"Something went wrong: {type(exc).__name__}: {md(exc)}", icon=":material/error:")
