"""`python -m pipeline import-queries DIR --group G [--name NAME] [--replace]`: a labelled query set for any deal
of the graph, from BEIR-style `queries.jsonl` + `qrels.tsv` whose corpus-ids are fact or episode uuids of
the deal (an episode judges every fact citing it).

`python -m pipeline import-queries --from-verdicts --group G --name NAME [--replace]`: analysts' spot-check
verdicts of the deal frozen into a stored set.

Either way the set is stored whole in the SQLite store; the same content again does nothing; a different set
under a name the deal already uses needs `--replace`. Evaluate it with `python -m pipeline eval --group G
--judgments set:NAME` (or `labelled` when it is the deal's only set).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pipeline.errors import InvalidInput
from pipeline.lab import Lab

VERBS = {"created": "imported from {}", "replaced": "replaced from {}", "unchanged": "unchanged, nothing to do"}
VERDICTS_SET_NAME = "analyst verdicts"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    cmd = sub.add_parser("import-queries", help="import queries.jsonl + qrels.tsv (fact or episode uuids) for a deal")
    cmd.add_argument("folder", nargs="?", help="folder with queries.jsonl and qrels.tsv")
    cmd.add_argument("--group", required=True)
    cmd.add_argument(
        "--name",
        default=None,
        help=f"set name (default: the folder's name; with --from-verdicts: {VERDICTS_SET_NAME!r})",
    )
    cmd.add_argument("--replace", action="store_true", help="replace a different set of the same name")
    cmd.add_argument("--from-verdicts", action="store_true", help="freeze the deal's analysts' verdicts into a set")
    cmd.set_defaults(run=run)
    return cmd


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    if args.from_verdicts == bool(args.folder):
        raise InvalidInput("Give either a folder (queries.jsonl + qrels.tsv) or --from-verdicts, not both or neither.")
    if args.from_verdicts:
        return await _from_verdicts(lab, args)
    from pipeline.query_sets.importer import import_query_files

    report = await import_query_files(lab, Path(args.folder), args.group, args.name, replace=args.replace)
    saved = report.saved
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(
        f"query set {saved.name!r} of deal {saved.group_id!r} {VERBS[saved.status].format(args.folder)}: "
        f"{saved.queries} queries, {saved.judgments} judgments ({report.facts_via_episodes} from "
        f"{report.episodes} judged episode{'s' if report.episodes != 1 else ''})",
        file=sys.stderr,
    )
    return {
        **saved.__dict__,
        "facts_judged_directly": report.facts_judged_directly,
        "facts_via_episodes": report.facts_via_episodes,
        "episodes": report.episodes,
        "unjudged_queries": len(report.unjudged_queries),
    }


async def _from_verdicts(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.query_sets.verdicts import save_verdicts_as_query_set

    await lab.deal(args.group)
    saved = save_verdicts_as_query_set(lab.store, args.group, args.name or VERDICTS_SET_NAME, replace=args.replace)
    print(
        f"query set {saved.name!r} of deal {saved.group_id!r} {VERBS[saved.status].format('analysts verdicts')}: "
        f"{saved.queries} queries, {saved.judgments} judgments",
        file=sys.stderr,
    )
    return dict(saved.__dict__)
