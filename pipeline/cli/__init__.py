"""`python -m pipeline ...`: seed the demo, import BEIR sets and query sets, export judgments, show status and
deals, query, compare two settings, evaluate, gate a candidate setting against a baseline (CI), give a deal the
vector index, back up and restore the data directory.

One module per command (`add_arguments` + `run`), or per pair that belongs together (`deals.py` also has `status`,
`backup.py` `restore`), each a row of `COMMANDS`; `common.py` runs them. Only the chosen command's module is
imported, and the engine only as the command uses it, so `--help` loads none of it. Errors meant for the user (bad
input, unreachable backend, unknown deal) print one line and exit 2. Benchmarks have their own entry point:
`python -m benchmarks`.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from importlib import import_module

from pipeline.cli.common import OneLineParser, add_json_flag, run

__all__ = ["COMMANDS", "build_parser", "main"]


@dataclass(frozen=True)
class CommandRow:
    module: str  # under pipeline.cli
    help: str
    adder: str = "add_arguments"  # the module's function that adds the command's arguments and sets its `run`


COMMANDS: dict[str, CommandRow] = {
    "seed-demo": CommandRow("seed_demo", "load the bundled demo deal (idempotent)"),
    "import-beir": CommandRow("import_beir", "import corpus.jsonl, queries.jsonl, qrels.tsv as a deal"),
    "import-queries": CommandRow(
        "import_queries",
        "import a query set for a deal: judged (beir, trec, quepid) or queries only (.txt log, .csv, jsonl)",
    ),
    "export-judgments": CommandRow("export_judgments", "write a stored query set as trec, quepid or beir files"),
    "status": CommandRow("deals", "backend, embedder and deals with their counts", "add_status_arguments"),
    "deals": CommandRow("deals", "every deal with its counts, vector dimension and embedder match"),
    "query": CommandRow("query", "retrieve, rerank and cite the top k facts for one query"),
    "compare": CommandRow("compare", "one query under two settings: verdict, per-side metrics, overlap"),
    "eval": CommandRow(
        "eval", "sweep recipe x candidates x top-k x reranker over the judged queries; save an experiment"
    ),
    "gate": CommandRow(
        "gate",
        "a regression gate for CI: a candidate setting against a baseline on the same queries; exit 1 on a regression",
    ),
    "why": CommandRow(
        "why", "where each judged-relevant fact was lost under a setting (floor, fusion, N, k...), with what-ifs"
    ),
    "invalidations": CommandRow(
        "invalidations", "every fact a write retired, what most likely retired it, suspicious retirements first"
    ),
    "duplicates": CommandRow(
        "duplicates", "entity pairs that look like one entity, exact names first, with their evidence"
    ),
    "pool": CommandRow("pool", "build judging pools, list them, draw calibration samples"),
    "judge": CommandRow("judge", "grade a judging pool's pairs with an LLM judge (OPENAI_API_KEY)"),
    "vector-index": CommandRow("vector_index", "create the facts' vector index on a deal and measure its recall"),
    "backup": CommandRow(
        "backup",
        "copy the store and the embedded graph's files into a new folder (the store only on a server or Neo4j)",
    ),
    "restore": CommandRow(
        "backup",
        "restore a backup into the data directory (RETRIEVAL_LAB_DATA_DIR); refused if it holds data",
        "add_restore_arguments",
    ),
}


def chosen_command(argv: list[str]) -> str | None:
    """The command `argv` names: its first word that is not an option (the top level's only option, --debug, takes
    no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser for `argv`: every command listed, the arguments of the one it names (of all, given None)."""
    named = None if argv is None else chosen_command(argv)
    parser = OneLineParser(prog="python -m pipeline", description=__doc__.split("\n\n")[0])
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, command in COMMANDS.items():
        parsed = sub.add_parser(name, help=command.help, description=command.help)
        if argv is None or name == named:
            getattr(import_module(f"pipeline.cli.{command.module}"), command.adder)(parsed)
            add_json_flag(parsed)
    return parser


def main(argv: list[str] | None = None, started: float | None = None) -> int:
    """Run one command; `started` is the `time.monotonic()` of the process's start (else now), for progress lines."""
    words = sys.argv[1:] if argv is None else argv
    return run(build_parser(words), words, started)
