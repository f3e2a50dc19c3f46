"""The first stage pauses the cyclic collector while it parses, and always gives it back as it was."""

from __future__ import annotations

import gc

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
