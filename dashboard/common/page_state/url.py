"""URL-backed page state: what a reload or a link must show again lives in the URL.

A widget whose URL value is its own option binds itself (`bind="query-params"`: sliders, filters, tabs). A pick
among records, or a name whose widget shows a label, keeps its id or name in the URL instead
(`?history.open=12`, `?timeline.relation=HAS_ARR`, `?compare.a.reranker=local`): `restore_*` seeds the widget
before it is drawn, `publish_id` writes the pick back after it. The session remembers the URL value it last read
or wrote for each key, so the URL is read again only when it changes under the page: a reload, a link from
outside, or an in-app link to another record (never because the page itself moved on).

This module is the only one that touches `st.query_params` (a test holds every other module to it): a page reads
and writes its URL through the functions here, so what a link may say, and what a reload shows, is decided in one
place. Links between pages (`st.page_link(..., query_params=...)`) only name the parameters a page reads here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from datetime import date
from typing import TypeVar

import streamlit as st

from dashboard.common.text import md
from pipeline.api import whole_number

T = TypeVar("T")
SEEN = "page_state.url_seen"  # key -> the URL value this session last read or wrote for it
GENERATIONS = "page_state.generations"  # key -> how many times the page set the pick itself (`pick_key`)


def _linked(key: str, parse: Callable[[str], T | None], what: str, rule: str) -> T | None:
    """The value the URL gives for `key` when it is new to this session (see the module's doc), parsed; a value
    the page cannot show (`parse` gives None) is dropped from the URL with one line saying so ("The link's queue
    “x” is not a queue of this deal: left out."), and the page draws without it."""
    seen: dict[str, str] = st.session_state.setdefault(SEEN, {})
    raw = st.query_params.get(key)
    if raw is None or seen.get(key) == raw:
        return None
    seen[key] = raw
    if (value := parse(raw)) is not None:
        return value
    del st.query_params[key]
    st.warning(f"The link's {what} “{md(raw, 40)}” is not {rule}: left out.")
    return None


def link_id(raw: str) -> int | None:
    """A record id as a URL spells it: digits 0-9 only, 1 to SQLite's largest integer; else None."""
    return whole_number(raw, 1)


def linked_id(key: str, valid: Collection[int], what: str, rule: str) -> int | None:
    """The id the URL gives for `key` (when new to the session, `_linked`) when it is one of `valid`."""

    def parse(raw: str) -> int | None:
        number = link_id(raw)
        return number if number is not None and number in valid else None

    return _linked(key, parse, what, rule)


def linked_text(key: str, valid: Collection[str], what: str, rule: str) -> str | None:
    """`linked_id` for a pick named by text (a name or a uuid)."""
    return _linked(key, lambda raw: raw if raw in valid else None, what, rule)


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
    """Before the widget `key` is drawn: its id from the URL when the URL changed under the page (`linked_id`)."""
    if (value := linked_id(key, valid, what, rule)) is not None:
        st.session_state[key] = value


def publish_id(key: str, value: int | str | None) -> None:
    """After the widget `key` is drawn: its id (or name) in the URL, or no parameter when nothing (or the page's
    default) is picked."""
    seen: dict[str, str] = st.session_state.setdefault(SEEN, {})
    if value is None:
        seen.pop(key, None)
    else:
        seen[key] = str(value)
    mirror(key, None if value is None else str(value))


def url_value(key: str) -> str | None:
    """The URL's raw value for `key`, read on every run. Unlike `linked_*`, nothing remembers it: for a page that
    keeps the URL equal to its own pick and so can tell a link from its own echo by comparing (the deal picker), or
    that must check a value before a widget bound to the URL reads it (N and k in digits 0-9 only)."""
    return st.query_params.get(key)


def in_url(key: str) -> bool:
    """Whether the URL holds `key`: a bound widget's value came with a link or a reload (the audit log's deal
    filter then keeps the link's deals instead of the sidebar's)."""
    return key in st.query_params


def drop_param(key: str) -> None:
    """`key` out of the URL (if there): a value the page refused, so the next run and a reload open without it."""
    if key in st.query_params:
        del st.query_params[key]


def mirror(key: str, value: str | None) -> None:
    """The URL's `key` equal to `value`, or absent when None (as a bound widget leaves its default out); written
    only when it differs, so an unchanged pick does not touch the browser's history."""
    if value is None:
        drop_param(key)
    elif st.query_params.get(key) != value:
        st.query_params[key] = value


def take_renamed(old: str, new: Iterable[str], parse: Callable[[str], T | None], what: str, rule: str) -> None:
    """An old link's parameter `old`, renamed since (Compare's `compare.reranker` is now `compare.b.reranker`): it
    leaves the URL, and its value, when `parse` accepts it, seeds each of the `new` keys that neither the URL nor the
    session holds yet, so an old bookmark opens as it did. A value the page cannot show is said in one line, as
    `_linked` says it."""
    raw = st.query_params.get(old)
    if raw is None:
        return
    del st.query_params[old]
    value = parse(raw)
    if value is None:
        st.warning(f"The link's {what} “{md(raw, 40)}” is not {rule}: left out.")
        return
    for key in new:
        if key not in st.query_params and key not in st.session_state:
            st.session_state[key] = value


def take_link(key: str, into: str) -> None:
    """A one-shot link parameter (the audit log's "undo this" links): moved out of the URL into session state
    under `into`, where the page picks it up (and says whether it can still act on it) once."""
    if (linked := st.query_params.get(key)) is not None:
        del st.query_params[key]
        st.session_state[into] = linked


def pick_key(key: str) -> str:
    """The widget key of a pick the page also sets itself (Evaluate opens a finished sweep's experiment): a new key
    each time the page sets it (`set_pick`). A request the browser sent before it drew the page's pick carries its
    copy of the old widget, with the old pick: a timed fragment run, or a run of the whole page it was folded into
    (Streamlit folds a pending request into the `st.rerun()` that follows it). That copy then names a widget no
    longer drawn, and cannot undo the page's pick; the user's own change comes from the widget they see."""
    return f"{key}.{st.session_state.get(GENERATIONS, {}).get(key, 0)}"


def set_pick(key: str, value: int | str) -> None:
    """Before the widget `pick_key(key)` is drawn: the page picks `value` itself, and puts it in the URL."""
    generations: dict[str, int] = st.session_state.setdefault(GENERATIONS, {})
    generations[key] = generations.get(key, 0) + 1
    st.session_state[pick_key(key)] = value
    publish_id(key, value)


def current_pick(key: str) -> int | str | None:
    """What the widget `pick_key(key)` holds."""
    return st.session_state.get(pick_key(key))
