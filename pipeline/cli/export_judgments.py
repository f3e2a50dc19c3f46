"""`python -m pipeline export-judgments --group G [--set NAME] --format trec|quepid|beir --out PATH`: a stored query
set written for other tools, and for `import-queries` to read back as it was.

- `beir`: a folder with `queries.jsonl` + `qrels.tsv` (everything: ids, texts, types, splits, judgments);
- `trec`: a folder with `qrels.txt` (`query-id 0 fact-uuid grade`) + `queries.tsv` (`query-id<TAB>text`);
- `quepid`: Quepid's ratings CSV (`query,docid,rating`), rated queries only: a query without a judgment has no
  row in it (said in the output). A text a spreadsheet would run as a formula is written with a `'` in front,
  which `import-queries` removes again.

A folder format needs a new or empty folder; the output is written whole or not at all.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pipeline.api import Lab
from pipeline.errors import InvalidInput

FORMATS = ("beir", "trec", "quepid")  # query_sets.formats.JUDGED_FORMATS, without its imports


def add_arguments(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--group", required=True)
    cmd.add_argument("--set", dest="set_name", default=None, metavar="NAME", help="the set (default: the deal's)")
    cmd.add_argument("--format", choices=FORMATS, required=True)
    cmd.add_argument("--out", required=True, help="a new or empty folder (beir, trec) or a .csv file (quepid)")
    cmd.set_defaults(run=run)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    await lab.deal(args.group)
    query_set = lab.query_sets.load(args.group, args.set_name)
    if query_set is None:
        names = ", ".join(repr(s.name) for s in lab.query_sets.sets(args.group)) or "none"
        which = f"no query set named {args.set_name!r}" if args.set_name is not None else "no query set"
        raise InvalidInput(f"Deal {args.group!r} has {which} (its sets: {names}).")
    report = lab.query_sets.export(query_set, args.format, Path(args.out))
    print(
        f"query set {query_set.name!r} of deal {args.group!r} exported as {report.format} to {report.path}: "
        f"{report.queries} queries ({report.unjudged_written} without a judgment), {report.judgments} judgments",
        file=sys.stderr,
    )
    if report.unjudged_left_out:
        print(
            f"note: {report.unjudged_left_out} queries without a judgment are not in the file: Quepid's ratings CSV "
            "holds rated queries only (export as beir or trec to keep them)",
            file=sys.stderr,
        )
    if report.merged_texts:
        print(
            f"warning: {report.merged_texts} queries have the same text as another (case and spacing aside); "
            "Quepid keys queries by text, so an import makes each such pair one query",
            file=sys.stderr,
        )
    return {"group_id": args.group, "name": query_set.name, **report.__dict__}
