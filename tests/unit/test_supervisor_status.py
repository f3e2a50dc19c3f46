"""The supervisor's status file when an old supervisor's last word races a new supervisor's first.

The old supervisor's redis-server died (killed) just as a client started a new one. If the old one's
"stopped" landed after the new one's "starting", the new one would see a foreign nonce and keep its
"ready" to itself, and the client would give up: "server did not start" (seen once in CI).
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.errors import BackendUnavailable
from pipeline.graph.embedded import status as status_module
from pipeline.graph.embedded.paths import ServerFiles
from pipeline.graph.embedded.status import READY, STARTING, STOPPED, Status, read_status, write_status
from pipeline.graph.embedded.supervisor import Supervisor
from pipeline.graph.embedded_falkordb import EmbeddedFalkorDB


def test_an_old_supervisors_last_word_never_covers_a_new_supervisors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = ServerFiles(tmp_path)
    write_status(files, Status("old", READY, supervisor=1, redis=2))
    old, new = Supervisor(files, "old"), Supervisor(files, "new")
    real_read = status_module.read_status
    starter: list[threading.Thread] = []

    def read_then_let_the_new_one_start(files_: ServerFiles) -> Status | None:
        current = real_read(files_)
        if not starter:  # the old supervisor has read its own nonce: now the new one writes "starting"
            starter.append(threading.Thread(target=new._claim))
            starter[0].start()
            starter[0].join(timeout=0.5)  # it waits for the old one's word if the two are serialised
        return current

    monkeypatch.setattr(status_module, "read_status", read_then_let_the_new_one_start)
    old._status(STOPPED, "redis-server exited with code -9")
    starter[0].join(timeout=10)
    monkeypatch.setattr(status_module, "read_status", real_read)
    new._status(READY)

    final = read_status(files)
    assert final is not None and (final.nonce, final.state) == ("new", READY)


def test_a_superseded_supervisor_does_not_overwrite_the_new_ones_word(tmp_path: Path) -> None:
    files = ServerFiles(tmp_path)
    Supervisor(files, "old")._claim()
    Supervisor(files, "new")._claim()
    Supervisor(files, "old")._status(STOPPED, "late")

    final = read_status(files)
    assert final is not None and (final.nonce, final.state) == ("new", STARTING)


def test_a_superseded_supervisors_phase_does_not_overwrite_the_new_ones_word(tmp_path: Path) -> None:
    files = ServerFiles(tmp_path)
    old = Supervisor(files, "old")
    old._claim()
    Supervisor(files, "new")._claim()
    old._status(STARTING, "counting the loaded graphs")

    final = read_status(files)
    assert final is not None and final.nonce == "new"


def _launcher_stand_in(monkeypatch: pytest.MonkeyPatch, before: Callable[[list[str]], object], command: str) -> None:
    """The client's launch of a supervisor runs `before(its arguments)`, then `command` (true/false) instead."""
    real_popen = subprocess.Popen

    def launch(args: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
        before(args)
        return real_popen([command])

    monkeypatch.setattr(subprocess, "Popen", launch)


def test_a_client_that_gives_up_names_the_phase_its_supervisor_was_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A supervisor still checking its files when the client's time is up (a stand-in writes its word)."""
    files = ServerFiles(tmp_path)

    def word(args: list[str]) -> None:
        write_status(files, Status(args[-1], STARTING, os.getpid(), None, "checking the append-only files"))

    _launcher_stand_in(monkeypatch, word, "true")
    with pytest.raises(BackendUnavailable, match=r"server did not start in time \(checking the append-only files; "):
        EmbeddedFalkorDB(tmp_path)._start(time.monotonic() + 1.0)


def test_a_supervisor_that_cannot_even_start_is_reported_at_once_with_its_last_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = ServerFiles(tmp_path)
    log = "Traceback (most recent call last):\nImportError: no module named redis\n"
    _launcher_stand_in(monkeypatch, lambda args: files.supervisor_log.write_text(log), "false")
    with pytest.raises(
        BackendUnavailable, match=r"failed to start \(exit code 1: ImportError: no module named redis; "
    ):
        EmbeddedFalkorDB(tmp_path)._start(time.monotonic() + 60)
