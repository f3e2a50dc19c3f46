"""`python -m pipeline status`: backend, embedder, hosted reranker keys, and every deal with its counts."""

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
    from pipeline.graph.deals import deal_counts

    deals = []
    for deal in await lab.deals():
        counts = await deal_counts(lab.backend, deal.group_id)
        deals.append(
            {"group": deal.group_id, "name": deal.name, "embedder": deal.embedder.describe(), **counts.__dict__}
        )
    status = {
        "backend": lab.backend.describe(),
        "embedder": lab.embedder.info.describe(),
        "voyage": "API key set" if has_key("voyage", lab.settings) else "no API key (Voyage reranker off)",
        "deals": deals,
    }
    if not args.json:
        print(f"backend:  {status['backend']}\nembedder: {status['embedder']}\nvoyage:   {status['voyage']}")
        if not deals:
            print("deals:    none (run: python -m pipeline seed-demo)")
        for d in deals:
            print(
                f"deal {d['group']!r} ({d['name']}): {d['facts']} facts ({d['current_facts']} current, "
                f"{d['superseded_facts']} superseded), {d['entities']} entities, {d['episodes']} episodes, "
                f"{d['merges']} merges; embedder {d['embedder']}"
            )
    return status
