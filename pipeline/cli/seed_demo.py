"""`python -m pipeline seed-demo`: load the bundled demo deal (idempotent), then measure its one-click examples
(`lab.ingest.measure_examples`, in `pipeline/ingest/demo/seed.py`) unless the deal already has an experiment."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pipeline.api import Lab
from pipeline.cli.common import cli_actor, warn
from pipeline.errors import RetrievalLabError


def add_arguments(seed: argparse.ArgumentParser) -> None:
    seed.add_argument("--group", default="demo")
    seed.add_argument("--force", action="store_true", help="rebuild even if unchanged")
    seed.add_argument(
        "--replace",
        action="store_true",
        help="replace a deal of another source, or one with admin corrections or merges (says what is lost; audited)",
    )
    seed.set_defaults(run=run)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:
    lab.require_access(args.group, "seed-demo")  # a deal this deployment may not show is refused in one line
    async with lab.admin_section():  # no admin action lands between the clobber check and the rebuild
        result = await lab.ingest.seed_demo(
            args.group,
            args.force,
            replace=args.replace,
            actor=cli_actor(),
            announce=warn,
        )
    verb = "already seeded, nothing to do" if result.skipped else "seeded"
    print(
        f"demo deal {result.group_id!r} {verb}: {result.facts} facts, {result.entities} entities, "
        f"{result.episodes} episodes, {result.merges} merges",
        file=sys.stderr,
    )
    experiment = await _examples(lab, args.group)
    return {**result.__dict__, "examples_experiment": experiment}


async def _examples(lab: Lab, group_id: str) -> int | None:
    """Measure the demo's examples (once per deal); a failure is a warning: the deal itself is seeded."""
    try:
        experiment = await lab.ingest.measure_examples(group_id)
    except RetrievalLabError as exc:
        warn(f"the demo's examples were not measured ({exc}); Compare lists the labelled queries instead")
        return None
    if experiment is not None:
        print(f"demo examples measured: experiment #{experiment} (without vs with local reranking)", file=sys.stderr)
    return experiment
