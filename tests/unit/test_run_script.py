"""`scripts/run.sh` serves on localhost unless told otherwise (run in a copy with stand-in tools, so what it
would hand `python -m dashboard.serve`, and so streamlit, is seen exactly); `.streamlit/config.toml` says
localhost too."""

from __future__ import annotations

import os
import shutil
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def streamlit_args(tmp_path: Path, *args: str, **env: str) -> list[str]:
    (tmp_path / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "run.sh", tmp_path / "scripts" / "run.sh")
    (tmp_path / "scripts" / "setup.sh").write_text("true\n")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    # the stand-in python prints what the launcher is given (one ARG line each) and does nothing else
    (bin_dir / "python").write_text(
        '#!/bin/sh\nif [ "$1 $2" = "-m dashboard.serve" ]; then shift 2; for a in "$@"; do echo "ARG:$a"; done; fi\n'
    )
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    clean = {k: v for k, v in os.environ.items() if k not in ("RETRIEVAL_LAB_ADDRESS", "PORT")}
    out = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "run.sh"), *args],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return [line.removeprefix("ARG:") for line in out.stdout.splitlines() if line.startswith("ARG:")]


def address(argv: list[str]) -> str:
    """The value streamlit would use: the last --server.address given."""
    values = [argv[i + 1] for i, a in enumerate(argv) if a == "--server.address"]
    return values[-1]


def test_run_sh_serves_on_localhost_by_default(tmp_path: Path) -> None:
    argv = streamlit_args(tmp_path)
    assert argv[:2] == ["--server.port", "8501"]
    assert address(argv) == "127.0.0.1"
    assert "--logger.hideWelcomeMessage" not in argv  # Streamlit prints the one local URL itself


def test_run_sh_serves_elsewhere_only_when_told(tmp_path: Path) -> None:
    everywhere = streamlit_args(tmp_path / "a", RETRIEVAL_LAB_ADDRESS="0.0.0.0")
    assert address(everywhere) == "0.0.0.0"
    # on every interface Streamlit would look up the machine's external IP on the internet: run.sh says the URL
    assert everywhere[everywhere.index("--logger.hideWelcomeMessage") + 1] == "true"
    assert address(streamlit_args(tmp_path / "b", "--server.address", "10.0.0.5")) == "10.0.0.5"


def test_streamlit_config_says_localhost() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1"
