"""`python -m pipeline import-beir` prints a line from its first step on (the passages read), each timed from the
command's start on one clock, and ends with what it imported. The progress bar it replaces drew nothing until the
first 500 facts were embedded and written (~80 silent seconds on TAT-QA), then a rate from a clock started late."""

from __future__ import annotations

import re
import time

import pytest

from pipeline.cli import main
from pipeline.lab import Lab
from tests.conftest import FIXTURES

MINI = FIXTURES / "beir_mini"
PASSAGES = sum(1 for line in (MINI / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line.strip())


def test_the_command_prints_each_step_from_reading_on(capsys: pytest.CaptureFixture[str], lab: Lab) -> None:
    code = main(["import-beir", str(MINI), "--group", "progress_cli"])
    err = capsys.readouterr().err.splitlines()
    assert code == 0
    line = re.compile(r"import progress_cli +(\d+\.\d) s  (reading|embedding|writing) ")
    progress = [line.match(text) for text in err[:-1]]
    assert all(progress), err
    assert err[0].endswith(f"reading passages: {PASSAGES} of {PASSAGES} (100%)")
    times = [float(m.group(1)) for m in progress if m]
    assert times == sorted(times)  # one clock, from the command's start
    assert err[-2].startswith("import progress_cli") and f"writing facts: {PASSAGES} of {PASSAGES} (100%)" in err[-2]
    assert err[-1].startswith(f"{MINI} imported as deal 'progress_cli'")


def test_lines_are_timed_from_when_the_process_started(capsys: pytest.CaptureFixture[str], lab: Lab) -> None:
    """`python -m pipeline` takes the time before its imports (seconds on a busy machine) and hands it on."""
    code = main(["import-beir", str(MINI), "--group", "progress_started"], started=time.monotonic() - 100)
    first = capsys.readouterr().err.splitlines()[0]
    assert code == 0
    seconds = re.match(r"import progress_started +(\d+\.\d) s  reading ", first)
    assert seconds and float(seconds.group(1)) >= 100.0, first
