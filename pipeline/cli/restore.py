"""`python -m pipeline restore DIR [--force]`: put a backup made by `backup` into the data directory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pipeline.settings import get_settings


def add_parser(sub: Any) -> argparse.ArgumentParser:
    restore = sub.add_parser(
        "restore",
        help="restore a backup into the data directory (RETRIEVAL_LAB_DATA_DIR); refused if it holds data",
    )
    restore.add_argument("dir", type=Path, help="a folder written by python -m pipeline backup")
    restore.add_argument(
        "--force",
        action="store_true",
        help="replace the data directory's data, kept in .replaced-*/ inside it (only while nothing uses it)",
    )
    restore.set_defaults(run=run, no_lab=True)  # opening the Lab would start the server on what is replaced
    return restore


def run(args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.backup import restore_backup

    result = restore_backup(args.dir, get_settings().resolved_data_dir, force=args.force)
    print(result.line(), file=sys.stderr)
    return {
        "data_dir": str(result.data_dir),
        "graph": result.contents.graph,
        "replaced": list(result.replaced),
        "kept_in": str(result.kept) if result.kept else None,
    }
