"""`python -m pipeline gate` as CI runs it: each command a process of its own, all started at once (each spends
seconds importing), on the session's data directory (tests/conftest.py puts it in the environment)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.settings import PROJECT_ROOT


@dataclass(frozen=True)
class Done:
    code: int
    out: str
    err: str


def gate(group: str, *argvs: Sequence[str], timeout: float = 600) -> list[Done]:
    """Run each `gate --group GROUP ...`; their outcomes in order."""
    env = {**os.environ, "RETRIEVAL_LAB_EMBEDDER": "local"}
    started = [
        subprocess.Popen(
            [sys.executable, "-m", "pipeline", "gate", "--group", group, *argv],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for argv in argvs
    ]
    outcomes = []
    for process in started:
        out, err = process.communicate(timeout=timeout)
        outcomes.append(Done(process.returncode, out, err))
    return outcomes
