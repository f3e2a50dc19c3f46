"""The README's commands work as written, and every relative link in README.md and docs/*.md opens a file.

The convention (said in docs/contributing.md): every line of a ```bash block in README.md is *checked*: its
program is `bash` with a script of this repository, or `.venv/bin/python -m MODULE` with a module that exists and,
for `pipeline` and `benchmarks`, arguments their own parsers accept (a removed flag, a renamed command or a bad
value fails). A ```bash run block is also *run*, line by line, as written, from the repository's root, in a fresh
data directory: it must exit 0. Only cheap commands go in `bash run` blocks (seed the demo, list deals, a query);
the full setup, a TAT-QA import or a sweep are only checked.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks.cli import build_parser as benchmarks_parser
from pipeline.cli import build_parser as pipeline_parser

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PYTHON = ".venv/bin/python"
PARSERS = {"pipeline": pipeline_parser, "benchmarks": benchmarks_parser}
ENV_ASSIGNMENT = re.compile(r"[A-Z_][A-Z0-9_]*=")
MAX_README_BYTES = 10_240


@dataclass(frozen=True)
class Block:
    info: str  # the fence's info string: "bash", "bash run"
    lines: tuple[str, ...]  # commands, continuation lines joined

    @property
    def runs(self) -> bool:
        return self.info.split()[1:2] == ["run"]


def code_blocks(markdown: str) -> Iterator[Block]:
    """The fenced blocks whose language is bash, each command on one line."""
    for info, body in re.findall(r"^```([^\n`]*)\n(.*?)^```", markdown, flags=re.S | re.M):
        if info.split()[:1] != ["bash"]:
            continue
        commands = re.sub(r"\\\n\s*", " ", body).splitlines()
        yield Block(info.strip(), tuple(c for c in commands if c.strip() and not c.lstrip().startswith("#")))


def problem(command: str) -> str | None:
    """Why `command` would not work as written on a fresh clone (None: it would)."""
    words = shlex.split(command, comments=True)
    while words and ENV_ASSIGNMENT.match(words[0]):
        words.pop(0)
    if not words:
        return "no command"
    program, args = words[0], words[1:]
    if program == "bash":
        script = ROOT / args[0] if args else None
        return None if script is not None and script.is_file() else f"no script {args[:1]} in this repository"
    if program != PYTHON:
        return f"runs {program!r}: use {PYTHON} (a system python lacks the packages) or bash scripts/..."
    if args[:1] != ["-m"] or len(args) < 2:
        return f"{PYTHON} without -m MODULE"
    module, rest = args[1], args[2:]
    if module in PARSERS:
        return _parse_problem(module, rest)
    return None if importlib.util.find_spec(module) else f"no module {module!r}"


def _parse_problem(module: str, args: list[str]) -> str | None:
    """What the command's own parser says about `args` (its one-line error), or None if it accepts them."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            PARSERS[module]().parse_args(args)
        except SystemExit as exc:
            if exc.code not in (0, None):  # --help exits 0
                return err.getvalue().strip() or f"exit {exc.code}"
    return None


BLOCKS = list(code_blocks(README.read_text(encoding="utf-8")))
COMMANDS = [line for block in BLOCKS for line in block.lines]


def test_the_readme_is_short_and_keeps_the_test_command() -> None:
    assert README.stat().st_size <= MAX_README_BYTES
    assert ("bash scripts/test.sh",) in [b.lines for b in BLOCKS]  # .ci/run calls exactly this
    assert "exec bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert any(b.runs for b in BLOCKS), "no ```bash run block: nothing of the README would be run"


@pytest.mark.parametrize("command", COMMANDS)
def test_each_readme_command_is_checked(command: str) -> None:
    assert problem(command) is None, f"{command}\n-> {problem(command)}"


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("python -m pipeline import-beir ../shared/data/tatqa --group tatqa", "use .venv/bin/python"),
        (".venv/bin/python -m pipeline deals --no-such-flag", "unrecognized arguments"),
        (".venv/bin/python -m pipeline query 'x' --group demo --candidates many", "not a whole number"),
        (".venv/bin/python -m pipeline no-such-command", "invalid choice"),
        (".venv/bin/python -m benchmarks bench --group demo --nope", "unrecognized arguments"),
        (".venv/bin/python -m pipeline.no_such_module", "no module"),
        ("bash scripts/no-such-script.sh", "no script"),
    ],
)
def test_the_check_catches_a_wrong_command(command: str, why: str) -> None:
    assert why in (problem(command) or "")


@pytest.mark.timeout(900)  # four fresh processes and the demo's seed: ~2.5 min on 2 cores at load 15
def test_the_runnable_blocks_run_as_written(tmp_path: Path) -> None:
    """From the repository's root, in a fresh data directory: as a newcomer would, one command after another."""
    env = {**os.environ, "RETRIEVAL_LAB_DATA_DIR": str(tmp_path / "data")}
    for command in (line for block in BLOCKS if block.runs for line in block.lines):
        done = subprocess.run(
            ["bash", "-c", command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
        )
        assert done.returncode == 0, f"{command}\nexit {done.returncode}\n{done.stderr[-2000:]}"


def markdown_files() -> list[Path]:
    return [README, *sorted((ROOT / "docs").glob("*.md"))]


def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation but '-' and '_' dropped, spaces as '-'."""
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def relative_links(path: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text)
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t)]  # not http:, https:, mailto:


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: p.name)
def test_every_relative_link_opens_a_file_and_its_heading(path: Path) -> None:
    broken = []
    for link in relative_links(path):
        target, _, anchor = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        if not file.exists():
            broken.append(f"{link}: no {file.relative_to(ROOT) if file.is_relative_to(ROOT) else file}")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{link}: no heading #{anchor} in {file.name}")
    assert not broken, f"{path.name}: {broken}"
