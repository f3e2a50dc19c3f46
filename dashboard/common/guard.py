"""Errors on a page become one clear message, never a stack trace."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from dashboard.common.text import md
from pipeline.errors import RetrievalLabError

log = logging.getLogger("retrieval_lab")


@contextmanager
def page_guard() -> Iterator[None]:
    try:
        yield
    except RetrievalLabError as exc:
        st.error(md(exc), icon=":material/error:")
    except Exception as exc:  # the trace goes to the server log, the page shows one line
        log.exception("page failed")
        st.error(f"Something went wrong: {type(exc).__name__}: {md(exc)}", icon=":material/error:")
