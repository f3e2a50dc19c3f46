"""The CLI imports only the command it runs: `--help` loads no engine module (no graphiti, no model runtime, no
statistics), and every command in the table still builds its whole parser. Figures: `python -m benchmarks
cli-start` (docs/benchmarks.md)."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import pipeline.cli
from pipeline.cli import COMMANDS, build_parser, main
from pipeline.embedders.local_minilm import LocalMiniLMEmbedder

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("graphiti_core", "onnxruntime", "scipy", "statsmodels", "openai", "neo4j", "numpy", "pipeline.lab")


def _loaded_after(argv: list[str]) -> list[str]:
    """The modules a fresh interpreter holds after running `python -m pipeline ARGV`."""
    code = f"import sys\nfrom pipeline.cli import main\nmain({argv!r})\nprint('MODULES', *sys.modules, file=sys.stderr)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    line = next(line for line in done.stderr.splitlines() if line.startswith("MODULES "))
    return line.split()[1:]


def test_help_loads_no_engine_module() -> None:
    loaded = _loaded_after(["--help"])
    assert "pipeline.cli" in loaded
    assert [name for name in loaded if name.split(".")[0] in HEAVY or name in HEAVY] == []


def test_a_command_s_help_loads_its_own_module_only() -> None:
    loaded = _loaded_after(["import-beir", "--help"])
    assert "pipeline.cli.import_beir" in loaded
    assert not {"pipeline.cli.eval", "pipeline.cli.gate", "pipeline.cli.query"} & set(loaded)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_in_the_table_builds_its_parser_and_answers_help(name: str, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main([name, "--help"]) == 0
    assert "--json" in capsys.readouterr().out


def test_every_command_module_is_in_the_table() -> None:
    modules = {m.name for m in pkgutil.iter_modules(pipeline.cli.__path__)} - {"common"}
    assert modules == {c.module for c in COMMANDS.values()}
    for command in COMMANDS.values():
        assert callable(getattr(importlib.import_module(f"pipeline.cli.{command.module}"), command.adder))


def test_the_whole_parser_reads_a_command_as_the_lazy_one_does() -> None:
    argv = ["query", "revenue", "--group", "acme", "--candidates", "20"]
    whole, lazy = build_parser().parse_args(argv), build_parser(argv).parse_args(argv)
    assert vars(whole) == vars(lazy)
    assert (lazy.group, lazy.candidates) == ("acme", 20)


def test_the_local_model_loads_at_the_first_text_embedded() -> None:
    embedder = LocalMiniLMEmbedder()
    assert "_session" not in vars(embedder)  # made, not loaded: `status` and `deals` embed nothing
    vector = embedder.encode_query("revenue in FY2025")
    assert "_session" in vars(embedder)
    assert vector.shape == (384,)
