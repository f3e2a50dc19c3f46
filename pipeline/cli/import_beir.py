"""`python -m pipeline import-beir DIR --group NAME`: a BEIR-style folder as its own deal, with a progress bar."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pipeline.lab import Lab


def add_parser(sub: Any) -> argparse.ArgumentParser:
    beir = sub.add_parser("import-beir", help="import corpus.jsonl, queries.jsonl, qrels.tsv as a deal")
    beir.add_argument("folder")
    beir.add_argument("--group", required=True)
    beir.add_argument("--replace", action="store_true", help="replace a deal built from another source")
    beir.set_defaults(run=run)
    return beir


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from tqdm import tqdm

    from pipeline.ingest.beir import import_beir

    lab.require_access(args.group, "import-beir")  # a deal this deployment may not show, --replace or not
    lab.backend.require_writable(args.group, "import-beir")  # refused in one line, before any progress bar
    with tqdm(total=0, unit="facts", desc=f"import {args.group}", disable=args.json) as bar:

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        result = await import_beir(
            lab.backend,
            lab.embedder,
            lab.settings.resolved_data_dir,
            Path(args.folder),
            args.group,
            replace=args.replace,
            progress=progress,
        )
    verb = "unchanged, nothing to do" if result.skipped else "imported"
    print(
        f"{args.folder} {verb} as deal {result.group_id!r}: {result.passages} passages, "
        f"{result.queries} queries, {result.judgments} judgments",
        file=sys.stderr,
    )
    return result.__dict__
