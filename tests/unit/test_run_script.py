"""`scripts/run.sh` serves on localhost unless told otherwise (run in a copy with stand-in tools, so what it
would hand streamlit is seen exactly); `.streamlit/config.toml` says localhost too."""

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
    (bin_dir / "python").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "streamlit").write_text('#!/bin/sh\nfor a in "$@"; do echo "$a"; done\n')
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
    return out.stdout.splitlines()


def address(argv: list[str]) -> str:
    """The value streamlit would use: the last --server.address given."""
    values = [argv[i + 1] for i, a in enumerate(argv) if a == "--server.address"]
    return values[-1]


def test_run_sh_serves_on_localhost_by_default(tmp_path: Path) -> None:
    argv = streamlit_args(tmp_path)
    assert argv[:2] == ["run", "streamlit_app.py"]
    assert address(argv) == "127.0.0.1"


def test_run_sh_serves_elsewhere_only_when_told(tmp_path: Path) -> None:
    assert address(streamlit_args(tmp_path / "a", RETRIEVAL_LAB_ADDRESS="0.0.0.0")) == "0.0.0.0"
    assert address(streamlit_args(tmp_path / "b", "--server.address", "10.0.0.5")) == "10.0.0.5"


def test_streamlit_config_says_localhost() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1"
