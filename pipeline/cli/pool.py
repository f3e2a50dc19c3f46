"""`python -m pipeline pool ...`: judging pools on a deal (pipeline/pools).

- `pool build --group G [--set NAME] --setting [RECIPE:]RERANKER:N:K ... | --experiment ID --by NAME`: pool
  the settings' top k over the set's queries (an experiment: every setting of its grid), pairs already judged
  left out; analysts grade it on the Spot-check page, the LLM judge with `python -m pipeline judge`.
- `pool list --group G`: the deal's pools with their progress.
- `pool calibrate --group G --pool ID --size N [--seed S] --by NAME`: a seeded sample of the judge's pairs for
  analysts to grade too (the judge's agreement with them is measured on those).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pipeline.api import Lab, now_iso
from pipeline.cli.common import add_json_flag, whole
from pipeline.errors import InvalidInput


def add_arguments(pool: argparse.ArgumentParser) -> None:
    actions = pool.add_subparsers(dest="action", required=True)
    build = actions.add_parser("build", help="pool several settings' top k over a query set's queries")
    build.add_argument("--group", required=True)
    build.add_argument("--set", dest="set_name", default=None, help="the stored query set (default: the deal's)")
    build.add_argument(
        "--setting", action="append", default=[], help="[RECIPE:]RERANKER:N:K, e.g. vector:local:50:10 (repeat)"
    )
    build.add_argument("--experiment", type=whole(1, 2**62), default=None, help="pool every setting of its grid")
    build.add_argument("--name", default=None, help="pool name (default: from the set and the time)")
    build.add_argument("--by", required=True, help="who builds it (a reviewer name)")
    build.set_defaults(run=run_build)
    listing = actions.add_parser("list", help="the deal's pools and how far their judging has gone")
    listing.add_argument("--group", required=True)
    listing.set_defaults(run=run_list)
    calibrate = actions.add_parser("calibrate", help="draw the judge's pairs for analysts to grade")
    calibrate.add_argument("--group", required=True)
    calibrate.add_argument("--pool", type=whole(1, 2**62), required=True)
    calibrate.add_argument("--size", type=whole(1, 20_000), default=30)
    calibrate.add_argument("--seed", type=whole(0, 2**31 - 1), default=0)
    calibrate.add_argument("--name", default="")
    calibrate.add_argument("--by", required=True, help="who draws it (a reviewer name)")
    calibrate.set_defaults(run=run_calibrate)
    add_json_flag(build, listing, calibrate)


def _settings(lab: Lab, args: argparse.Namespace) -> list[Any]:
    from pipeline.api.models import Setting

    if bool(args.setting) == (args.experiment is not None):
        raise InvalidInput("Give the settings to pool with --setting (repeated) or --experiment ID, not both.")
    if args.experiment is None:
        return [Setting.parse(text, "--setting") for text in args.setting]
    _info, result = lab.evaluation.load_experiment(args.experiment, rankings=False)
    if result.spec.group_id != args.group:
        raise InvalidInput(f"Experiment #{args.experiment} is not one of deal {args.group!r}'s.")
    return [s.setting for s in result.grid]


async def run_build(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    from pipeline.api.models import PoolSpec

    settings = _settings(lab, args)
    name = args.name or f"pool of {args.set_name or 'the default set'} · {now_iso()[:19]}"
    pool = await lab.pools.build(PoolSpec(name, args.group, args.set_name, tuple(settings), args.by))
    print(
        f"pool #{pool.queue_id} {pool.name!r} of deal {pool.group_id!r}: {pool.pairs:,} pairs to judge from "
        f"{len(pool.settings)} settings on set {pool.set_name!r} ({pool.skipped:,} judged already, left out)",
        file=sys.stderr,
    )
    return _pool_dict(lab, pool)


async def run_list(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    await lab.deal(args.group)
    grades = lab.spotcheck.deal_grades(args.group)
    pools = [_pool_dict(lab, p, grades) for p in lab.pools.deal_pools(args.group)]
    for p in pools:
        print(f"#{p['pool']} {p['name']} · {p['label']} · {p['progress']}", file=sys.stderr)
    if not pools:
        print(f"deal {args.group!r} has no judging pool yet (python -m pipeline pool build)", file=sys.stderr)
    return {"group": args.group, "pools": pools}


async def run_calibrate(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    await lab.deal(args.group)
    pool = lab.pools.calibrate(args.group, args.pool, args.size, args.seed, args.by, args.name)
    print(f"calibration sample #{pool.queue_id} {pool.name!r}: {pool.pairs} pairs for analysts", file=sys.stderr)
    return _pool_dict(lab, pool)


def _pool_dict(lab: Lab, pool: Any, grades: Any = None) -> dict[str, Any]:
    progress = lab.pools.progress(pool, grades)
    return {
        "pool": pool.queue_id,
        "name": pool.name,
        "group": pool.group_id,
        "kind": pool.kind,
        "label": pool.label,
        "set": pool.set_name,
        "settings": list(pool.settings),
        "pairs": pool.pairs,
        "skipped": pool.skipped,
        "judged_by_analysts": progress.humans,
        "graded_by_judge": progress.judge,
        "progress": progress.text(),
    }
