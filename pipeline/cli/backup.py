"""`python -m pipeline backup DIR`: a consistent copy of the data directory's store and embedded graph;
`python -m pipeline restore DIR [--force]`: put a backup made by `backup` into the data directory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pipeline.api import Lab, get_settings, restore_backup


def add_arguments(backup: argparse.ArgumentParser) -> None:
    backup.add_argument("dir", type=Path, help="a new or empty folder, outside the data directory")
    backup.set_defaults(run=run)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    result = await lab.backup.back_up(args.dir)
    print(result.line(lab.backend), file=sys.stderr)
    return {"dir": str(result.target), "graph": result.contents.graph, "files": len(result.contents.files)}


def add_restore_arguments(restore: argparse.ArgumentParser) -> None:
    restore.add_argument("dir", type=Path, help="a folder written by python -m pipeline backup")
    restore.add_argument(
        "--force",
        action="store_true",
        help="replace the data directory's data, kept in .replaced-*/ inside it (only while nothing uses it)",
    )
    restore.set_defaults(run=run_restore, no_lab=True)  # opening the Lab would start the server on what is replaced


def run_restore(args: argparse.Namespace) -> dict[str, Any]:
    result = restore_backup(args.dir, get_settings().resolved_data_dir, force=args.force)
    print(result.line(), file=sys.stderr)
    return {
        "data_dir": str(result.data_dir),
        "graph": result.contents.graph,
        "replaced": list(result.replaced),
        "kept_in": str(result.kept) if result.kept else None,
    }
