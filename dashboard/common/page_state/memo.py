"""A session's memo: results worth keeping across reruns (a query's runs, its grades, a deal's examples), kept
per session under one name and bounded, the least recently used dropped first, so a long demo never grows a
session without end. Results shared by every session belong in `dashboard/common/shared_cache.py` instead."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import streamlit as st

T = TypeVar("T")


class Held:
    """A memo's entries held directly, for code that runs off the script's thread (a coroutine on the event loop,
    where `st.session_state` is not this session's): taken on the script's thread, used anywhere."""

    def __init__(self, entries: OrderedDict[Hashable, Any], keep: int) -> None:
        self.entries, self.keep = entries, keep

    def peek(self, key: Hashable) -> Any:
        """The value kept under `key` (now the most recently used), or None."""
        if key in self.entries:
            self.entries.move_to_end(key)
        return self.entries.get(key)

    def put(self, key: Hashable, value: object) -> None:
        self.entries[key] = value
        self.entries.move_to_end(key)
        while len(self.entries) > self.keep:
            self.entries.popitem(last=False)


class SessionMemo:
    """Up to `keep` values under the session key `name`, each computed once while it is kept."""

    def __init__(self, name: str, keep: int) -> None:
        self.name, self.keep = name, keep

    def _entries(self) -> OrderedDict[Hashable, Any]:
        return st.session_state.setdefault(self.name, OrderedDict())

    def held(self) -> Held:
        """The entries, for use off the script's thread (call this on it)."""
        return Held(self._entries(), self.keep)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries()

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The value kept under `key`, computed (and kept) when missing."""
        entries = self._entries()
        if key in entries:
            entries.move_to_end(key)
            return entries[key]
        value = compute()
        self.put(key, value)
        return value

    def peek(self, key: Hashable) -> Any:
        """The value kept under `key` (now the most recently used), or None; nothing computed."""
        return self.held().peek(key)

    def put(self, key: Hashable, value: object) -> None:
        self.held().put(key, value)

    def forget(self, where: Callable[[Hashable], bool] = lambda _key: True) -> None:
        """Drop the entries whose key `where` accepts (all by default): what they were computed from changed."""
        entries = self._entries()
        for key in [k for k in entries if where(k)]:
            del entries[key]
