"""`python -m pipeline ...`: seed the demo, import BEIR sets and query sets, export judgments, show status and
deals, query, compare two settings, evaluate, gate a candidate setting against a baseline (CI), give a deal the
vector index, back up and restore the data directory.

One module per command (`add_parser` + `run`); `common.py` runs them. Errors meant for the user (bad
input, unreachable backend, unknown deal) print one line and exit 2. Benchmarks have their own entry
point: `python -m benchmarks`.
"""

from __future__ import annotations

import argparse

from pipeline.cli import (
    backup,
    compare,
    deals,
    export_judgments,
    gate,
    import_beir,
    import_queries,
    judge,
    pool,
    query,
    seed_demo,
    vector_index,
)
from pipeline.cli import eval as eval_command
from pipeline.cli.common import OneLineParser, add_json_flag, run

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="python -m pipeline", description=__doc__)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", required=True)
    # a module per command, or per pair that belongs together: deals.py also adds `status`, backup.py `restore`
    adders = (
        seed_demo.add_parser,
        import_beir.add_parser,
        import_queries.add_parser,
        export_judgments.add_parser,
        deals.add_status_parser,
        deals.add_parser,
        query.add_parser,
        compare.add_parser,
        eval_command.add_parser,
        gate.add_parser,
        pool.add_parser,
        judge.add_parser,
        vector_index.add_parser,
        backup.add_parser,
        backup.add_restore_parser,
    )
    add_json_flag(*(add(sub) for add in adders))
    return parser


def main(argv: list[str] | None = None, started: float | None = None) -> int:
    """Run one command; `started` is the `time.monotonic()` of the process's start (else now), for progress lines."""
    return run(build_parser(), argv, started)
