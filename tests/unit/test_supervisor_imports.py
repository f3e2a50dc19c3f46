"""The supervisor is a fresh interpreter at every start of an embedded server (each CLI command, each restart
after a crash): it must not load graphiti, whose import takes longer than the server's own start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_supervisor_starts_without_importing_graphiti() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, pipeline.graph.embedded.supervisor; print(*sys.modules)"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "pipeline.graph.embedded.supervisor" in loaded
    assert not [name for name in loaded if name.split(".")[0] == "graphiti_core"]
