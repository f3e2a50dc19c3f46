"""The embedded server killed mid-session: the lab notices, restarts it, and nothing acknowledged is lost."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from pipeline.deals import deal_counts
from pipeline.ingest.beir import import_beir
from pipeline.lab import Lab
from pipeline.retrieval.retrieve import retrieve
from tests.conftest import FIXTURES, make_settings


async def test_killed_server_is_restarted_and_keeps_acknowledged_writes(tmp_path: Path) -> None:
    lab = await Lab.open(make_settings(tmp_path))
    try:
        await import_beir(lab.backend, lab.embedder, lab.settings.resolved_data_dir, FIXTURES / "beir_mini", "kill")
        before = await deal_counts(lab.backend, "kill")
        server = lab.backend.embedded
        assert server is not None and server.process is not None
        os.kill(server.process.pid, signal.SIGKILL)  # no shutdown, no final fsync
        server.process.wait(timeout=10)

        problem = await lab.backend.health()
        assert problem is not None and "embedded FalkorDB" in problem

        what = await lab.recover()
        assert what is not None and "reconnected" in what
        assert lab.backend.embedded is not None and lab.backend.embedded.process is not None
        assert lab.backend.embedded.process.pid != server.process.pid
        assert await deal_counts(lab.backend, "kill") == before
        run = await retrieve(lab, "Northwind net sales", "kill", 8, 3, "local")
        assert len(run.results) == 3
        assert await lab.recover() is None  # healthy now: nothing to do
    finally:
        await lab.close()
        if lab.backend.embedded:
            lab.backend.embedded.stop()
