"""`python -m pipeline query "TEXT"`: one retrieval run (top k with citations, timings), recorded in the history."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pipeline.api import Lab, one_line
from pipeline.api.models import DEFAULT_RECIPE, FIRST_STAGES, RECIPE_NAMES, RERANKERS, Recipe, RetrievalRun
from pipeline.cli.common import integer, parse_date

FACT_CHARS = 150  # a fact's line in the table


def add_arguments(query: argparse.ArgumentParser) -> None:
    query.add_argument("text")
    query.add_argument("--group", default="demo")
    query.add_argument("--candidates", type=integer, default=None, help="N first-stage candidates (default 50)")
    query.add_argument("--top-k", type=integer, default=None, help="k results (default 10)")
    query.add_argument(
        "--recipe",
        default=DEFAULT_RECIPE,
        help=f"first-stage recipe: {', '.join(RECIPE_NAMES)} (default {DEFAULT_RECIPE}), "
        "node-distance@ENTITY_UUID, or a graphiti SearchConfig .json file",
    )
    query.add_argument("--reranker", default="local", help=", ".join(RERANKERS[:-1]) + f" or {RERANKERS[-1]}")
    query.add_argument("--model", default=None, help="Voyage rerank model (default rerank-2.5)")
    query.add_argument("--include-superseded", action="store_true")
    query.add_argument("--as-of", default=None, help="answer with the facts valid on this date (YYYY-MM-DD)")
    query.add_argument(
        "--first-stage",
        choices=FIRST_STAGES,
        default="exact",
        help="exact (graphiti's cosine scan, default) or vector_index (see `vector-index`)",
    )
    query.set_defaults(run=run)


async def run(lab: Lab, args: argparse.Namespace) -> dict[str, Any]:

    retrieval = await lab.retrieval.retrieve(
        args.text,
        args.group,
        args.candidates,
        args.top_k,
        args.reranker,
        include_superseded=args.include_superseded,
        as_of=parse_date(args.as_of),
        reranker_model=args.model,
        first_stage=args.first_stage,
        recipe=Recipe.parse(args.recipe),
    )
    run_id = lab.history.save_run(retrieval, "cli")
    if not args.json:
        print(render_run(retrieval))
    print(f"recorded as run #{run_id} (History page)", file=sys.stderr)
    return retrieval.to_dict()


def render_run(run: RetrievalRun) -> str:
    """A readable table of the top k, then timings."""
    lines = [
        f"{run.query!r} on {run.group_id!r}: recipe={run.recipe}, N={run.num_candidates}, k={run.top_k}, "
        f"reranker={run.reranker}, first stage={run.first_stage}"
    ]
    if len(run.candidates) < run.num_candidates:
        lines.append(
            f"! the first stage found {len(run.candidates)} of N={run.num_candidates} candidates: the deal holds no "
            "more that pass the recipe's floors (cosine sim_min_score, the fusion's reranker_min_score)"
        )
    if run.fallback_reason:
        lines.append(f"! reranker fell back to first-stage order: {run.fallback_reason}")
    lines.append(f"{'#':>3} {'score':>8} {'1st':>4} {'move':>5}  fact / citation")
    for result in run.results:
        r = result.ranked
        mark = " [superseded]" if r.candidate.superseded_on(run.as_of) else ""
        fact = one_line(r.candidate.fact, FACT_CHARS)
        lines.append(f"{r.rank:>3} {r.score:>8.4f} {r.candidate.first_stage_rank:>4} {r.rank_change:>+5}  {fact}{mark}")
        if result.citations:
            lines.append(f"{'':>24}{result.citations[0].label}")
    stages = ", ".join(f"{k} {v:.0f} ms" for k, v in run.timings.stages_ms.items())
    lines.append(f"timings: {stages}")
    lines.extend(f"! over budget: {msg}" for msg in run.timings.over_budget)
    return "\n".join(lines)
