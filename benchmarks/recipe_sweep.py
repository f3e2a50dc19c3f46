"""`python -m benchmarks recipe-sweep`: what sweeping many first-stage recipes costs against sweeping one.

Three cold sweeps (caches bypassed) of the same queries, N, k and rerankers, alternating over `--repeat` rounds so
the machine's noise falls on all alike: one recipe alone; all the recipes in one sweep (each method's list fetched
once per query and depth, shared by every recipe that uses it); and each recipe in a sweep of its own, summed (what
the same grid costs without the sharing). Figures are medians; the ratio is many / one, measured in the same run.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pipeline.api import Lab
from pipeline.api.models import RECIPE_NAMES, SweepSpec


async def recipe_sweep(
    lab: Lab,
    group: str,
    queries: int | None,
    candidates: Sequence[int],
    top_ks: Sequence[int],
    rerankers: Sequence[str],
    one: str,
    many: Sequence[str] = RECIPE_NAMES,
    repeat: int = 1,
    split: str | None = None,
) -> dict[str, Any]:
    base = SweepSpec(
        group,
        tuple(candidates),
        tuple(top_ks),
        tuple(rerankers),
        split=split,
        limit_queries=queries,
        use_cache=False,
        recipes=(one,),
    ).validate()
    together = replace(base, recipes=tuple(many)).validate()
    times: dict[str, list[float]] = {"one": [], "many": [], "apart": []}
    stats: dict[str, Any] = {}
    run_sweep = lab.evaluation.run_sweep
    for _round in range(repeat):
        alone = await run_sweep(base)
        times["one"].append(alone.stats.seconds)
        shared = await run_sweep(together)
        times["many"].append(shared.stats.seconds)
        times["apart"].append(sum([(await run_sweep(replace(base, recipes=(r,)))).stats.seconds for r in many]))
        stats = {"settings_one": len(alone.grid), "settings_many": len(shared.grid), "queries": alone.stats.queries}
    medians = {name: round(statistics.median(values), 2) for name, values in times.items()}
    return {
        "group": group,
        "one": one,
        "many": list(many),
        "candidates": list(base.candidates),
        "top_ks": list(base.top_ks),
        "rerankers": list(base.rerankers),
        "repeat": repeat,
        **stats,
        "seconds_median": medians,
        "seconds": {name: [round(v, 2) for v in values] for name, values in times.items()},
        "ratio_many_to_one": round(medians["many"] / medians["one"], 2) if medians["one"] else None,
        "ratio_apart_to_one": round(medians["apart"] / medians["one"], 2) if medians["one"] else None,
    }


def render_recipe_sweep(result: dict[str, Any]) -> str:
    s = result["seconds_median"]
    return "\n".join(
        [
            f"recipe sweeps on {result['group']!r}: {result['queries']} queries x N {result['candidates']} x k "
            f"{result['top_ks']} x {result['rerankers']}, cold (caches bypassed), median of {result['repeat']}:",
            f"  {result['one']} alone ({result['settings_one']} settings): {s['one']:.1f} s",
            f"  {len(result['many'])} recipes in one sweep ({result['settings_many']} settings): {s['many']:.1f} s "
            f"= {result['ratio_many_to_one']:.2f}x",
            f"  each recipe in its own sweep, summed: {s['apart']:.1f} s = {result['ratio_apart_to_one']:.2f}x",
        ]
    )
