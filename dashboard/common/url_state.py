"""Page state in the URL for selections a widget cannot bind itself: a pick among records by id.

A selectbox bound with `bind="query-params"` writes its *formatted* option to the URL, which for a list of
runs or experiments is a long label. These picks keep the record's id in the URL instead (`?history.open=12`):
`restore` seeds the widget from the URL when a page is opened from a link or reloaded, `publish` writes the
current pick back after the widget has drawn.
"""

from __future__ import annotations

from collections.abc import Collection

import streamlit as st

SEEDED = "url_state.seeded"  # the keys already seeded from the URL in this session (a link is read once)


def linked_id(key: str, valid: Collection[int]) -> int | None:
    """The id the URL gives for `key`, once per session (a link or a reload is read when the page is first
    drawn), when it is one of `valid`; an id the page cannot show is dropped from the URL."""
    seeded: set[str] = st.session_state.setdefault(SEEDED, set())
    if key in seeded:
        return None
    seeded.add(key)
    raw = st.query_params.get(key)
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value in valid:
        return value
    del st.query_params[key]
    return None


def restore_id(key: str, valid: Collection[int]) -> None:
    """Before the widget `key` is drawn: its id from the URL on this session's first visit (`linked_id`)."""
    if (value := linked_id(key, valid)) is not None:
        st.session_state[key] = value


def publish_id(key: str, value: int | None) -> None:
    """After the widget `key` is drawn: its id in the URL, or no parameter when nothing is picked."""
    if value is None:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get(key) != str(value):
        st.query_params[key] = str(value)
