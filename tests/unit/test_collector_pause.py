"""The first stage pauses the cyclic collector while it parses, and always gives it back as it was."""

from __future__ import annotations

import gc

import pytest

from pipeline.retrieval import collector
from pipeline.retrieval.collector import collector_paused


def test_paused_inside_nested_pauses_and_restored_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer search still runs
    assert gc.isenabled()


def test_restored_after_an_error_and_left_off_when_it_was_off() -> None:
    try:
        with collector_paused():
            raise ValueError("boom")
    except ValueError:
        pass
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_searches_that_never_stop_overlapping_still_collect_now_and_then(monkeypatch: pytest.MonkeyPatch) -> None:
    collected: list[int] = []
    monkeypatch.setattr(collector.gc, "collect", lambda *a: collected.append(1) or 0)
    clock = [1000.0]
    monkeypatch.setattr(collector.time, "monotonic", lambda: clock[0])
    outer = collector_paused()
    outer.__enter__()  # a search that is always running while others come and go
    try:
        for _ in range(10):
            clock[0] += 0.5
            with collector_paused():
                pass
        assert len(collected) == 2  # 5 s of pauses without a break: once past 2 s, once more past 4 s
        assert not gc.isenabled()
    finally:
        outer.__exit__(None, None, None)
    assert gc.isenabled()
