"""`python -m pipeline duplicates --group G`: entity pairs that look like one entity, exact names first, each with its
evidence: graphiti's exact and core name forms, the 3-character shingles graphiti's fuzzy rule compares, the name
embeddings' cosine, and how many entities a fact links to both. Review them on Entity merges (merge, reject, undo).

    python -m pipeline duplicates --group demo
    python -m pipeline duplicates --group 3f1c9a52-acme --json
"""

from __future__ import annotations

import argparse
from typing import Any

from pipeline.api import Lab
from pipeline.cli.common import integer

NAME_CHARS = 40


def add_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--group", default="demo")
    command.add_argument("--limit", type=integer, default=50, help="list at most this many pairs (default 50)")
    command.set_defaults(run=run)


def _kind(name_match: float) -> str:
    return "exact name" if name_match >= 1.0 else "same core name" if name_match > 0 else "similar"


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    report = await lab.merges.find_candidates(args.group, limit=args.limit)
    pairs = list(report.candidates)
    shared = await lab.merges.shared_neighbours(args.group, pairs)
    rows = [
        {
            "canonical": p.canonical.name,
            "alias": p.alias.name,
            "canonical_uuid": p.canonical.uuid,
            "alias_uuid": p.alias.uuid,
            "kind": _kind(p.signals.name_match),
            "score": round(p.score, 4),
            "name_match": p.signals.name_match,
            "shingle": p.signals.shingle,
            "cosine": p.signals.cosine,
            "shared_neighbours": shared[(p.canonical.uuid, p.alias.uuid)],
            "facts": [p.canonical.facts, p.alias.facts],
        }
        for p in pairs
    ]
    if not args.json:
        print(
            f"duplicates: deal {args.group!r}, {report.entities} entities, {report.pairs_scored} pairs scored, "
            f"{len(rows)} candidates (rejected pairs and merged aliases left out)"
        )
        for r in rows:
            cos = "-" if r["cosine"] is None else f"{r['cosine']:.2f}"
            shared = f"{r['shared_neighbours']} shared neighbour{'' if r['shared_neighbours'] == 1 else 's'}"
            print(
                f"  {r['score']:.2f}  {r['kind']:<14} {r['canonical'][:NAME_CHARS]!r} <- {r['alias'][:NAME_CHARS]!r}"
                f"  shingles {r['shingle']:.2f} · cosine {cos} · {shared}"
                f" · facts {r['facts'][0]}/{r['facts'][1]}"
            )
    return {"group_id": args.group, "entities": report.entities, "candidates": rows}
