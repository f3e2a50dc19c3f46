"""A page cache for immutable results (frozen records in tuples), kept as the objects themselves.

`st.cache_data` hands every hit a fresh unpickled copy: on a 10,000-fact deal that copy costs more than a
page's whole rerun (a hub entity's timeline, the deal's supersessions: hundreds of ms). The records the
pages cache are frozen dataclasses in tuples, nothing can change them in place, so every rerun and session
can share one object (`st.cache_resource`). Keys are the same as before: the deal and its state stamp
(`dashboard/common/deal_state.py`); a stale state is simply never asked for again, and admin actions
`clear()` at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

F = TypeVar("F", bound=Callable[..., Any])


def shared_cache(max_entries: int) -> Callable[[F], F]:
    """`st.cache_resource` for functions returning immutable values: no copy on a hit."""
    return st.cache_resource(show_spinner=False, max_entries=max_entries)  # type: ignore[return-value]
