"""`python -m pipeline invalidations --group G`: every fact a write retired, the fact that most likely retired it, and
the warning signs of a collateral retirement (graphiti #1728), the most suspicious first.

    python -m pipeline invalidations --group demo
    python -m pipeline invalidations --group 3f1c9a52-acme --suspicious --json
"""

from __future__ import annotations

import argparse
from typing import Any

from pipeline.api import Lab
from pipeline.cli.common import integer

FACT_CHARS = 90


def add_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--group", default="demo")
    command.add_argument("--suspicious", action="store_true", help="only retirements with a warning sign")
    command.add_argument("--limit", type=integer, default=None, help="list at most this many retirements")
    command.set_defaults(run=run)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    audit = await lab.temporal.invalidation_audit(args.group)
    shown = audit.suspicious if args.suspicious else audit.retirements
    shown = shown[: args.limit] if args.limit is not None else shown
    if not args.json:
        print("\n".join(lines(audit, shown)))
    return {
        "group_id": audit.group_id,
        "facts": audit.facts,
        "retired": len(audit.retirements),
        "suspicious": len(audit.suspicious),
        "retirements": [_row(r) for r in shown],
    }


def _when(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _row(r: Any) -> dict[str, Any]:
    return {
        "uuid": r.fact.uuid,
        "fact": r.fact.fact,
        "relation": r.fact.relation,
        "retired_at": _when(r.retired_at),
        "retired_by": r.by.uuid if r.by else None,
        "retired_by_fact": r.by.fact if r.by else None,
        "found": r.found,
        "replaceable": r.replaceable,
        "similarity": None if r.similarity is None else round(r.similarity, 3),
        "older": r.older,
        "batch": r.batch,
        "signs": list(r.signs),
    }


def lines(audit: Any, shown: Any) -> list[str]:
    out = [
        f"invalidations: deal {audit.group_id!r}, {audit.facts} facts, {len(audit.retirements)} retired by a write, "
        f"{len(audit.suspicious)} with a warning sign"
    ]
    for r in shown:
        when = r.retired_at.strftime("%Y-%m-%d %H:%M") if r.retired_at else "-"
        out.append("")
        out.append(
            f"{'SUSPECT' if r.signs else 'ok':<7} retired {when} (one of {r.batch} then): {r.fact.fact[:FACT_CHARS]!r}"
        )
        if r.by is not None:
            alike = f", {r.similarity:.0%} of words in common" if r.similarity is not None else ""
            out.append(f"        by ({r.found}{alike}): {r.by.fact[:FACT_CHARS]!r}")
        out += [f"        ! {sign}" for sign in r.signs]
    return out
