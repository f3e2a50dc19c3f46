"""`python -m pipeline backup DIR`: a consistent copy of the data directory's store and embedded graph."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pipeline.lab import Lab


def add_parser(sub: Any) -> argparse.ArgumentParser:
    backup = sub.add_parser(
        "backup",
        help="copy the store and the embedded graph's files into a new folder (the store only on a server or Neo4j)",
    )
    backup.add_argument("dir", type=Path, help="a new or empty folder, outside the data directory")
    backup.set_defaults(run=run)
    return backup


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.backup import back_up

    result = await back_up(lab, args.dir)
    print(result.line(lab.backend), file=sys.stderr)
    return {"dir": str(result.target), "graph": result.contents.graph, "files": len(result.contents.files)}
