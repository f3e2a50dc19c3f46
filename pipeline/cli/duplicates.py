"""`python -m pipeline duplicates --group G`: entity pairs that look like one entity, exact names first, each with its
evidence: graphiti's exact and core name forms, the 3-character shingles graphiti's fuzzy rule compares, the name
embeddings' cosine, and how many entities a fact links to both. Review them on Entity merges (merge, reject, undo).

    python -m pipeline duplicates --group demo
    python -m pipeline duplicates --group 3f1c9a52-acme --json
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from pipeline.api import Lab
from pipeline.cli.common import integer

NAME_CHARS = 40


def add_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--group", default="demo")
    command.add_argument("--limit", type=integer, default=50, help="list at most this many pairs (default 50)")
    command.add_argument(
        "--precision",
        type=float,
        default=None,
        metavar="P",
        help="also the auto-merge operating point: the lowest threshold keeping this precision (0-1) on the labelled "
        "pairs (the demo's labels, and every merge or rejection made on the deal)",
    )
    command.set_defaults(run=run)


def _kind(name_match: float) -> str:
    return "exact name" if name_match >= 1.0 else "same core name" if name_match > 0 else "similar"


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.errors import InvalidInput

    if args.precision is not None and not 0.0 < args.precision <= 1.0:
        raise InvalidInput(f"--precision must be above 0 and at most 1; got {args.precision}.")
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
    data: dict[str, Any] = {"group_id": args.group, "entities": report.entities, "candidates": rows}
    if args.precision is not None:
        data["operating_point"] = await _operating_point(lab, args.group, args.precision, not args.json)
    return data


async def _operating_point(lab: Lab, group_id: str, target: float, say: bool) -> dict[str, Any]:
    from pipeline.api.models import RULES
    from pipeline.errors import InvalidInput

    demo = await lab.ingest.labelled_evaluation(group_id)
    points = await lab.merges.operating_points(group_id, demo.pairs if demo else ())
    if points is None:
        raise InvalidInput(
            f"Deal {group_id!r} has no labelled entity pair: merge or reject candidate pairs on Entity merges first."
        )
    same = sum(1 for p in points.pairs if p.same)
    out: dict[str, Any] = {"precision": target, "pairs": len(points.pairs), "same": same, "rules": {}}
    lines = [f"operating point at precision >= {target:.2f}, on {len(points.pairs)} labelled pairs ({same} the same):"]
    for rule, what in RULES.items():
        point = points.at_precision(rule, target)
        out["rules"][rule] = None if point is None else asdict(point)
        if point is None:
            lines.append(f"  {what}: no threshold keeps that precision")
            continue
        lines.append(
            f"  {what}: threshold {point.threshold:.2f}, precision {point.precision:.0%}, recall "
            f"{point.recall:.0%} ({point.true_positives} of {same} merged, {point.false_positives} wrongly)"
        )
    default = points.graphiti_default
    out["graphiti_default"] = asdict(default)
    lines.append(
        f"  graphiti's default {default.threshold:.2f}: precision "
        + (f"{default.precision:.0%}" if default.precision is not None else "- (merges nothing)")
        + f", recall {default.recall or 0:.0%}"
    )
    chosen = points.at_precision("graphiti", target)
    if chosen is not None:
        out["graphiti_setting"] = lab.merges.graphiti_setting(chosen.threshold)
        lines += ["", out["graphiti_setting"].rstrip()]
    if say:
        print("\n".join(["", *lines]))
    return out
