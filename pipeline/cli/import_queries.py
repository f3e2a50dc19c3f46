"""`python -m pipeline import-queries PATH --group G [--name NAME] [--replace] [--format F] [--sample N --seed S]`:
a query set for any deal of the graph, from

- a folder with BEIR-style `queries.jsonl` + `qrels.tsv`, or TREC's `qrels.txt` + `queries.tsv`, or Quepid's
  ratings CSV (`query,docid,rating`), whose corpus ids are fact or episode uuids of the deal (an episode judges
  every fact citing it);
- queries without judgments (an unjudged set, to judge later): a `.txt` query log (one query a line), a `.csv`
  with a `query` column (and an optional `id` column), a `queries.jsonl` alone.

The format is read from the path's shape unless `--format` names it. Log queries are de-duplicated (case and
spacing ignored, the first kept) and get ids from their text, the same on every import. `--sample N --seed S`
keeps N of them, the same N for the same seed.

`python -m pipeline import-queries --from-history --group G [--limit N]`: the deal's newest distinct queries
recorded in History (asked on the dashboard or with `query`) as an unjudged set, "history" by default.

`python -m pipeline import-queries --from-verdicts --group G --name NAME [--replace]`: analysts' spot-check
verdicts of the deal frozen into a stored set.

Either way the set is stored whole in the SQLite store; the same content again does nothing; a different set
under a name the deal already uses needs `--replace`. Evaluate it with `python -m pipeline eval --group G
--judgments set:NAME` (or `labelled` when it is the deal's only set); export it with `export-judgments`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.api import Lab
from pipeline.api.models import HISTORY_LIMIT, HISTORY_SET_NAME
from pipeline.cli.common import whole
from pipeline.errors import InvalidInput

if TYPE_CHECKING:
    from pipeline.api.models import SetRead

VERBS = {"created": "imported from {}", "replaced": "replaced from {}", "unchanged": "unchanged, nothing to do"}
VERDICTS_SET_NAME = "analyst verdicts"
FORMATS = ("beir", "trec", "quepid", "txt", "csv", "jsonl")  # query_sets.formats.FORMATS, without its imports
UNITS = {"txt": "lines", "csv": "rows", "quepid": "rating rows", "history": "recorded runs"}
MAKERS = {"beir": "import-queries", "trec": "import-queries (trec)", "quepid": "import-queries (quepid)"}


def add_arguments(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("path", nargs="?", help="a folder or file: beir, trec, quepid, .txt log, .csv, queries.jsonl")
    cmd.add_argument("--group", required=True)
    cmd.add_argument(
        "--name",
        default=None,
        help=f"set name (default: the folder's or file's name; --from-verdicts: {VERDICTS_SET_NAME!r}; "
        f"--from-history: {HISTORY_SET_NAME!r})",
    )
    cmd.add_argument("--replace", action="store_true", help="replace a different set of the same name")
    cmd.add_argument("--format", choices=FORMATS, default=None, help="the format of PATH (default: from its shape)")
    cmd.add_argument("--sample", type=whole(1), default=None, metavar="N", help="keep a seeded sample of N queries")
    cmd.add_argument("--seed", type=whole(0, 2**31 - 1), default=None, help="the sample's seed (default 0)")
    cmd.add_argument("--from-verdicts", action="store_true", help="freeze the deal's analysts' verdicts into a set")
    cmd.add_argument("--from-history", action="store_true", help="the deal's queries recorded in History, unjudged")
    cmd.add_argument(
        "--limit",
        type=whole(1),
        default=None,
        metavar="N",
        help=f"--from-history: the newest N distinct queries (default {HISTORY_LIMIT})",
    )
    cmd.set_defaults(run=run)


def _check(args: argparse.Namespace) -> None:
    if sum((bool(args.path), args.from_verdicts, args.from_history)) != 1:
        raise InvalidInput("Give either a folder or file (PATH), --from-verdicts or --from-history: exactly one.")
    if args.format and not args.path:
        raise InvalidInput("--format describes PATH: give a folder or file with it.")
    if args.seed is not None and args.sample is None:
        raise InvalidInput("--seed goes with --sample N.")
    if args.sample is not None and args.from_verdicts:
        raise InvalidInput("--sample is for PATH or --from-history, not --from-verdicts.")
    if args.limit is not None and not args.from_history:
        raise InvalidInput("--limit goes with --from-history.")


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    _check(args)
    if args.from_verdicts:
        return await _from_verdicts(lab, args)
    if args.from_history:
        read = await lab.query_sets.read_history(args.group, args.limit or HISTORY_LIMIT)
        name, made_by = args.name or HISTORY_SET_NAME, "history"
    else:
        path = Path(args.path)
        read = lab.query_sets.read_path(path, args.format)
        name = args.name if args.name is not None else (path.resolve().name if path.is_dir() else path.stem)
        made_by = MAKERS.get(read.format, "import-queries (log)")
    return await _store(lab, args, read, name, made_by)


async def _store(lab: Lab, args: argparse.Namespace, read: SetRead, name: str, made_by: str) -> dict[str, Any]:
    from pipeline.api.models import DEDUPED_FORMATS

    seed = args.seed if args.seed is not None else 0
    if args.sample is not None:
        read = lab.query_sets.sample(read, args.sample, seed)
        made_by = f"{made_by}, sample of {args.sample} seed {seed}"
    report = await lab.query_sets.import_set(args.group, read, name, replace=args.replace, created_by=made_by)
    saved = report.saved
    counts = f"read {read.read} {UNITS.get(read.format, 'queries')} ({read.format})"
    if read.format in DEDUPED_FORMATS:
        counts += f", {read.duplicates} duplicates dropped"
    if read.sampled_from is not None:
        counts += f", sampled {len(read.queries)} of {read.sampled_from} (seed {seed})"
    print(f"{read.where}: {counts}", file=sys.stderr)
    if read.format == "quepid":
        print("note: Quepid's CSV carries no query ids: each query's id comes from its text", file=sys.stderr)
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    judged = (
        f"{saved.judgments} judgments ({report.facts_via_episodes} from {report.episodes} judged "
        f"episode{'s' if report.episodes != 1 else ''})"
        if saved.judgments or read.judgments
        else "no judgments (an unjudged set: judge it before it can be scored)"
    )
    source = read.where if read.format == "history" else args.path
    print(
        f"query set {saved.name!r} of deal {saved.group_id!r} {VERBS[saved.status].format(source)}: "
        f"{saved.queries} queries, {judged}",
        file=sys.stderr,
    )
    return {
        **saved.__dict__,
        "format": read.format,
        "read": read.read,
        "duplicates": read.duplicates,
        "sampled_from": read.sampled_from,
        "seed": seed if read.sampled_from is not None else None,
        "facts_judged_directly": report.facts_judged_directly,
        "facts_via_episodes": report.facts_via_episodes,
        "episodes": report.episodes,
        "unjudged_queries": len(report.unjudged_queries),
    }


async def _from_verdicts(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    await lab.deal(args.group)
    saved = lab.query_sets.save_verdicts(args.group, args.name or VERDICTS_SET_NAME, replace=args.replace)
    print(
        f"query set {saved.name!r} of deal {saved.group_id!r} {VERBS[saved.status].format('analysts verdicts')}: "
        f"{saved.queries} queries, {saved.judgments} judgments",
        file=sys.stderr,
    )
    return dict(saved.__dict__)
