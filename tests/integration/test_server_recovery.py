"""The embedded server killed mid-session: the lab notices, restarts it, and nothing acknowledged is lost."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from pipeline.deals import deal_counts
from pipeline.graph.embedded.status import pid_alive
from pipeline.ingest.beir import import_beir
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from tests.conftest import FIXTURES, make_settings
from tests.support.embedded_files import newest_incr


def _wait_gone(pid: int, timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not pid_alive(pid), f"process {pid} still running"


async def test_killed_server_is_restarted_and_keeps_acknowledged_writes(tmp_path: Path) -> None:
    lab = await Lab.open(make_settings(tmp_path))
    try:
        await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, FIXTURES / "beir_mini", "kill")
        before = await deal_counts(lab.backend, "kill")
        server = lab.backend.embedded
        assert server is not None and server.process is not None
        killed = server.process
        os.kill(killed.pid, signal.SIGKILL)  # redis-server: no shutdown, no final fsync
        _wait_gone(killed.pid)
        _wait_gone(killed.supervisor)  # its supervisor follows it out

        problem = await lab.backend.health()
        assert problem is not None and "embedded FalkorDB" in problem

        what = await lab.recover()
        assert what is not None and "reconnected" in what
        assert lab.backend.embedded is not None and lab.backend.embedded.process is not None
        assert lab.backend.embedded.process.pid != killed.pid
        assert await deal_counts(lab.backend, "kill") == before
        run = await retrieve(lab, "Northwind net sales", "kill", 8, 3, "local")
        assert len(run.results) == 3
        assert await lab.recover() is None  # healthy now: nothing to do
    finally:
        await lab.close()
        if lab.backend.embedded:
            lab.backend.embedded.stop()


async def test_a_torn_tail_left_by_the_kill_is_cut_and_said_in_the_reconnect_line(tmp_path: Path) -> None:
    """What the dashboard shows in its one toast when it reconnects after a crash."""
    lab = await Lab.open(make_settings(tmp_path))
    try:
        await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, FIXTURES / "beir_mini", "torn")
        before = await deal_counts(lab.backend, "torn")
        server = lab.backend.embedded
        assert server is not None and server.process is not None
        killed = server.process
        os.kill(killed.pid, signal.SIGKILL)
        _wait_gone(killed.pid)
        _wait_gone(killed.supervisor)
        with newest_incr(lab.settings.resolved_data_dir).open("ab") as handle:
            handle.write(b"*3\r\n$11\r\nGRAPH.QUERY\r\n$4\r\ntorn\r\n$40\r\nCREATE (:N {cut: 'off")
        what = await lab.recover()
        assert what is not None and "reconnected" in what and "incomplete last command" in what, what
        assert "\n" not in what
        assert await deal_counts(lab.backend, "torn") == before
    finally:
        await lab.close()
        if lab.backend.embedded:
            lab.backend.embedded.stop()


async def test_killed_supervisor_takes_its_server_along_and_the_next_start_keeps_the_data(tmp_path: Path) -> None:
    lab = await Lab.open(make_settings(tmp_path))
    try:
        await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, FIXTURES / "beir_mini", "sup")
        before = await deal_counts(lab.backend, "sup")
        assert lab.backend.embedded is not None and lab.backend.embedded.process is not None
        killed = lab.backend.embedded.process
        os.kill(killed.supervisor, signal.SIGKILL)
        _wait_gone(killed.pid)  # PR_SET_PDEATHSIG: redis-server got SIGTERM and shut down cleanly

        assert await lab.recover() is not None
        assert lab.backend.embedded is not None and lab.backend.embedded.process is not None
        assert lab.backend.embedded.process.supervisor != killed.supervisor
        assert await deal_counts(lab.backend, "sup") == before
    finally:
        await lab.close()
        if lab.backend.embedded:
            lab.backend.embedded.stop()


async def test_a_slow_answer_is_not_a_lost_server_and_queries_in_flight_survive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """20 dashboard sessions on 2 cores: a health ping can wait past its 2 s limit. Reconnecting then closed
    the pool under every query in flight ("Connection closed by server" on 3 of 20 pages in CI)."""
    lab = await Lab.open(make_settings(tmp_path))
    try:
        backend = lab.backend
        assert backend.falkor is not None
        connection = backend.falkor.connection
        in_flight = asyncio.create_task(connection.blpop(["never-pushed"], timeout=3))  # a pooled connection, busy 3 s
        await asyncio.sleep(0.2)

        async def slow_ping() -> bool:  # the answer comes, but after the health check's limit
            await asyncio.sleep(2.5)
            return True

        monkeypatch.setattr(connection, "ping", slow_ping)
        assert await backend.health() is not None  # slow, as a health report says
        assert await lab.recover() is None  # but not lost: nothing to reconnect
        assert lab.backend is backend
        assert await in_flight is None  # ran to its end: nobody closed its connection
    finally:
        await lab.close()
        if lab.backend.embedded:
            lab.backend.embedded.stop()
