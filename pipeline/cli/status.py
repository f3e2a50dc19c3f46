"""`python -m pipeline status`: backend, embedder, hosted reranker keys, and every deal (as `deals` lists them)."""

from __future__ import annotations

import argparse
from typing import Any

from pipeline.lab import Lab
from pipeline.rerankers import has_key


def add_parser(sub: Any) -> argparse.ArgumentParser:
    status = sub.add_parser("status", help="backend, embedder and deals with their counts")
    status.set_defaults(run=run)
    return status


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.deals.summary import deal_summaries, format_table

    summaries = await deal_summaries(lab.backend, lab.store, lab.embedder.info, lab.settings.allowed_deals)
    deals = [s.row() for s in summaries]
    status = {
        "backend": lab.backend.describe(),
        "embedder": lab.embedder.info.describe(),
        "voyage": "API key set" if has_key("voyage", lab.settings) else "no API key (Voyage reranker off)",
        "cohere": "API key set" if has_key("cohere", lab.settings) else "no API key (Cohere reranker off)",
        "deals": deals,
    }
    if not args.json:
        print(f"backend:  {status['backend']}\nembedder: {status['embedder']}")
        print(f"voyage:   {status['voyage']}\ncohere:   {status['cohere']}")
        if deals:
            print(f"deals:\n{format_table(deals)}")
        else:
            print("deals:    none (run: python -m pipeline seed-demo)")
    return status
