"""`python -m pipeline import-beir DIR --group NAME`: a BEIR-style folder as its own deal, saying what it does from
the first second (reading, embedding, writing), with rates over the real time elapsed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pipeline.api import Lab
from pipeline.api.models import ProgressLines
from pipeline.cli.common import cli_actor, warn


def add_arguments(beir: argparse.ArgumentParser) -> None:
    beir.add_argument("folder")
    beir.add_argument("--group", required=True)
    beir.add_argument(
        "--replace",
        action="store_true",
        help="replace a deal of another source, or one with admin corrections or merges (says what is lost; audited)",
    )
    beir.set_defaults(run=run)


def _print(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    lab.require_access(args.group, "import-beir")  # a deal this deployment may not show, --replace or not
    lab.backend.require_writable(args.group, "import-beir")  # refused in one line, before any progress line
    report = None if args.json else ProgressLines(f"import {args.group}", _print, since=args.started)
    async with lab.admin_section():  # no admin action lands between the clobber check and the rebuild
        result = await lab.ingest.import_beir(
            Path(args.folder),
            args.group,
            replace=args.replace,
            report=report,
            actor=cli_actor(),
            announce=warn,
        )
    verb = "unchanged, nothing to do" if result.skipped else "imported"
    print(
        f"{args.folder} {verb} as deal {result.group_id!r}: {result.passages} passages, "
        f"{result.queries} queries, {result.judgments} judgments",
        file=sys.stderr,
    )
    return result.__dict__
