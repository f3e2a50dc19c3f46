"""The failpoint pause a test holds an action with: it waits only when asked for by kind and step and while its
file exists, and a release (a cancel) ends the wait."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pipeline.journal import failpoint


async def test_no_pause_unless_asked_for_at_that_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / failpoint.PAUSE_FILE).touch()
    monkeypatch.delenv(failpoint.ENV, raising=False)
    await asyncio.wait_for(failpoint.paused("sweep", "query_done", tmp_path, lambda: False), 5)
    monkeypatch.setenv(failpoint.ENV, "sweep:other_step:pause")
    await asyncio.wait_for(failpoint.paused("sweep", "query_done", tmp_path, lambda: False), 5)


async def test_waits_while_its_file_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(failpoint.ENV, "sweep:query_done:pause")
    await asyncio.wait_for(failpoint.paused("sweep", "query_done", tmp_path, lambda: False), 5)  # no file
    gate = tmp_path / failpoint.PAUSE_FILE
    gate.touch()
    waiting = asyncio.create_task(failpoint.paused("sweep", "query_done", tmp_path, lambda: False))
    await asyncio.sleep(3 * failpoint.PAUSE_POLL_S)
    assert not waiting.done()  # still held: the event loop ran this test meanwhile
    gate.unlink()
    await asyncio.wait_for(waiting, 5)


async def test_a_release_ends_the_wait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(failpoint.ENV, "sweep:query_done:pause")
    (tmp_path / failpoint.PAUSE_FILE).touch()
    released = asyncio.Event()
    waiting = asyncio.create_task(failpoint.paused("sweep", "query_done", tmp_path, released.is_set))
    await asyncio.sleep(3 * failpoint.PAUSE_POLL_S)
    assert not waiting.done()
    released.set()
    await asyncio.wait_for(waiting, 5)
