"""`python -m pipeline status`: backend, embedder, hosted reranker keys, and every deal (as `deals` lists them)."""

from __future__ import annotations

import argparse
from typing import Any

from pipeline.lab import Lab
from pipeline.rerankers import SPECS, has_key
from pipeline.settings import Settings


def add_parser(sub: Any) -> argparse.ArgumentParser:
    status = sub.add_parser("status", help="backend, embedder and deals with their counts")
    status.set_defaults(run=run)
    return status


def reranker_key_lines(settings: Settings) -> dict[str, str]:
    """One line per reranker that needs an API key (from the specs): whether its key is set."""
    return {s.name: s.key_status(has_key(s.name, settings)) for s in SPECS.values() if s.traits.key_setting}


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.deals.summary import deal_summaries, format_table

    summaries = await deal_summaries(lab.backend, lab.store, lab.embedder.info, lab.settings.allowed_deals)
    deals = [s.row() for s in summaries]
    keys = reranker_key_lines(lab.settings)
    status = {"backend": lab.backend.describe(), "embedder": lab.embedder.info.describe(), **keys, "deals": deals}
    if not args.json:
        print(f"backend:  {status['backend']}\nembedder: {status['embedder']}")
        for name, line in keys.items():
            print(f"{name + ':':<9} {line}")
        if deals:
            print(f"deals:\n{format_table(deals)}")
        else:
            print("deals:    none (run: python -m pipeline seed-demo)")
    return status
