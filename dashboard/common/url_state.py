"""Page state in the URL for selections a widget cannot bind itself: a pick among records by id or name.

A selectbox bound with `bind="query-params"` writes its *formatted* option to the URL, which for a list of
runs or experiments is a long label. These picks keep the record's id in the URL instead (`?history.open=12`),
or a stable name or uuid (`?timeline.relation=HAS_ARR`): `restore` seeds the widget from the URL when a page
is opened from a link or reloaded, `publish` writes the current pick back after the widget has drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import date
from typing import TypeVar

import streamlit as st

from dashboard.common.text import md
from pipeline.numbers import whole_number

T = TypeVar("T")
SEEDED = "url_state.seeded"  # the keys already seeded from the URL in this session (a link is read once)


def _linked(key: str, parse: Callable[[str], T | None], what: str, rule: str, once: bool = True) -> T | None:
    """The value the URL gives for `key`, once per session (a link or a reload is read when the page is first
    drawn), parsed; a value the page cannot show (`parse` gives None) is dropped from the URL with one line
    saying so ("The link's queue “x” is not a queue of this deal: left out."), and the page draws without it.
    `once=False` reads it whenever asked: for a widget the caller seeds on each visit to its page (as Compare's
    reranker is), so a link followed later in the session is read too."""
    seeded: set[str] = st.session_state.setdefault(SEEDED, set())
    if once and key in seeded:
        return None
    seeded.add(key)
    raw = st.query_params.get(key)
    if raw is None:
        return None
    if (value := parse(raw)) is not None:
        return value
    del st.query_params[key]
    st.warning(f"The link's {what} “{md(raw, 40)}” is not {rule}: left out.")
    return None


def link_id(raw: str) -> int | None:
    """A record id as a URL spells it: digits 0-9 only, 1 to SQLite's largest integer; else None."""
    return whole_number(raw, 1)


def linked_id(key: str, valid: Collection[int], what: str, rule: str) -> int | None:
    """The id the URL gives for `key` (once per session, `_linked`) when it is one of `valid`."""

    def parse(raw: str) -> int | None:
        number = link_id(raw)
        return number if number is not None and number in valid else None

    return _linked(key, parse, what, rule)


def linked_text(key: str, valid: Collection[str], what: str, rule: str, once: bool = True) -> str | None:
    """`linked_id` for a pick named by text (a name or a uuid)."""
    return _linked(key, lambda raw: raw if raw in valid else None, what, rule, once)


def linked_date(key: str, latest: date, what: str) -> date | None:
    """`linked_id` for an ISO date (YYYY-MM-DD) no later than `latest`."""

    def parse(raw: str) -> date | None:
        if len(raw) != 10 or not raw.isascii():
            return None
        try:
            day = date.fromisoformat(raw)
        except ValueError:
            return None
        return day if day <= latest else None

    return _linked(key, parse, what, "a date up to today (YYYY-MM-DD)")


def restore_text(key: str, valid: Collection[str], what: str, rule: str) -> None:
    """`restore_id` for a pick named by text."""
    if (value := linked_text(key, valid, what, rule)) is not None:
        st.session_state[key] = value


def restore_id(key: str, valid: Collection[int], what: str, rule: str) -> None:
    """Before the widget `key` is drawn: its id from the URL on this session's first visit (`linked_id`)."""
    if (value := linked_id(key, valid, what, rule)) is not None:
        st.session_state[key] = value


def publish_id(key: str, value: int | str | None) -> None:
    """After the widget `key` is drawn: its id (or name) in the URL, or no parameter when nothing is picked."""
    if value is None:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get(key) != str(value):
        st.query_params[key] = str(value)
