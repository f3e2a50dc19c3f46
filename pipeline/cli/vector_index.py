"""`python -m pipeline vector-index --group NAME`: give a deal the graph's vector index (the first stage's
`vector_index` option) and measure its recall against exact search on the deal's labelled queries."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pipeline.api import Lab
from pipeline.cli.common import cli_actor, whole
from pipeline.errors import InvalidInput


def add_arguments(index: argparse.ArgumentParser) -> None:
    index.add_argument("--group", required=True)
    index.add_argument("--queries", type=whole(1, 10_000), default=20, help="labelled queries to measure with")
    index.add_argument("--candidates", type=whole(1, 200), default=50, help="N, the pool whose recall is measured")
    index.set_defaults(run=run)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:

    lab.require_access(args.group, "vector-index")
    await lab.deal(args.group)  # an unknown deal is named as one
    lab.backend.require_writable(args.group, "creating the vector index")  # before anything else is asked of it
    labelled = lab.query_sets.load(args.group)
    if labelled is None or not labelled.queries:
        raise InvalidInput(f"Deal {args.group!r} has no labelled queries to measure the index with (import-queries).")
    async with lab.admin_section():
        say = lambda state: print(f"building: {state}", file=sys.stderr)  # noqa: E731
        created = await lab.retrieval.ensure_vector_index(args.group, say, actor=cli_actor())
    check = await lab.retrieval.check_vector_recall(
        args.group, [q.text for q in labelled.queries[: args.queries]], args.candidates
    )
    lab.retrieval.save_vector_check(check)
    print(f"vector index of {args.group!r} {'created' if created else 'ready'}: {check.summary()}", file=sys.stderr)
    return check.to_dict() | {"created": created}
