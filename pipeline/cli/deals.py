"""`python -m pipeline deals`: every deal in the graph (whoever wrote it) with its counts, stored vector
dimension, whether the configured embedder fits it (or the setting to use) and whether it is read-only;
`--read-only G` / `--writable G` set a deal's read-only flag (audited).
`python -m pipeline status`: backend, embedder, hosted reranker keys, and every deal (as `deals` lists them)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pipeline.api import Lab, has_key
from pipeline.api.models import SPECS, Settings
from pipeline.cli.common import cli_actor


def add_status_arguments(status: argparse.ArgumentParser) -> None:
    status.set_defaults(run=run_status)


def reranker_key_lines(settings: Settings) -> dict[str, str]:
    """One line per reranker that needs an API key (from the specs): whether its key is set."""
    return {s.name: s.key_status(has_key(s.name, settings)) for s in SPECS.values() if s.traits.key_setting}


async def run_status(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    summaries = await lab.deal_book.summaries()
    deals = [s.row() for s in summaries]
    keys = reranker_key_lines(lab.settings)
    status = {"backend": lab.backend.describe(), "embedder": lab.embedder.info.describe(), **keys, "deals": deals}
    if not args.json:
        print(f"backend:  {status['backend']}\nembedder: {status['embedder']}")
        for name, line in keys.items():
            print(f"{name + ':':<9} {line}")
        if deals:
            print(f"deals:\n{lab.deal_book.format_table(deals)}")
        else:
            print("deals:    none (run: python -m pipeline seed-demo)")
    return status


def add_arguments(deals: argparse.ArgumentParser) -> None:
    flag = deals.add_mutually_exclusive_group()
    flag.add_argument("--read-only", metavar="GROUP", help="make this deal read-only: nothing writes to its graph")
    flag.add_argument("--writable", metavar="GROUP", help="make this deal writable again")
    deals.add_argument("--actor", default=None, help="who sets the flag, for the audit log (default: cli:<user>)")
    deals.set_defaults(run=run)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    group, read_only = (args.read_only, True) if args.read_only else (args.writable, False)
    if group:
        deal = await lab.set_read_only(group, read_only, args.actor or cli_actor())
        print(f"deal {deal.group_id!r} is now {'read-only' if read_only else 'writable'}", file=sys.stderr)
    summaries = await lab.deal_book.summaries()
    rows = [s.row() for s in summaries]
    if not args.json:
        print(lab.deal_book.format_table(rows) if rows else "no deals (run: python -m pipeline seed-demo)")
    return {"embedder": lab.embedder.info.describe(), "deals": rows}
