"""`python -m benchmarks sweep`: a sweep's time cold and warm, and where it goes.

Cold means the sweep's caches are bypassed (`SweepSpec.use_cache=False`: no pool and no reranker score is read
from the store, so every query is embedded, retrieved at every N and reranked; the pools and scores are still
written, as a real first sweep writes them). Warm is the same sweep again with the caches read. Each cold sweep
runs once per `--concurrency` value (queries in flight at once), alternating over `--repeat` rounds so the
machine's noise falls on all of them alike; the figures are medians. The rankings and metrics of every run are
compared with the first: a difference is reported (it would mean the sweep is not deterministic).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pipeline.api import Lab
from pipeline.api.models import PHASES, SweepResult, SweepSpec


def _fingerprint(result: SweepResult) -> list[tuple[str, str, tuple[str, ...], tuple[tuple[str, float], ...]]]:
    """Every (setting, query): its ranking and metrics; what two runs of one sweep must agree on."""
    return sorted((r.setting.key, r.query_id, r.ranking, tuple(sorted(r.metrics.items()))) for r in result.rows)


async def time_sweep(
    lab: Lab,
    group: str,
    queries: int | None,
    candidates: Sequence[int],
    top_ks: Sequence[int],
    rerankers: Sequence[str],
    concurrency: Sequence[int],
    repeat: int,
    split: str | None = None,
) -> dict[str, Any]:
    spec = SweepSpec(
        group, tuple(candidates), tuple(top_ks), tuple(rerankers), split=split, limit_queries=queries, use_cache=False
    ).validate()
    runs: dict[int, list[SweepResult]] = {c: [] for c in concurrency}
    reference: list[Any] | None = None
    differing = 0
    for _round in range(repeat):
        for c in concurrency:
            result = await lab.evaluation.run_sweep(spec, concurrency=c)
            runs[c].append(result)
            mine = _fingerprint(result)
            reference = reference if reference is not None else mine
            differing += mine != reference
    started = time.perf_counter()
    warm = await lab.evaluation.run_sweep(replace(spec, use_cache=True), concurrency=max(concurrency))
    warm_s = time.perf_counter() - started
    differing += _fingerprint(warm) != reference
    first = runs[concurrency[0]][0]
    return {
        "group": group,
        "queries": first.stats.queries,
        "candidates": list(spec.candidates),
        "top_ks": list(spec.top_ks),
        "rerankers": list(spec.rerankers),
        "settings": len(first.grid),
        "pools_retrieved": first.stats.pools_retrieved,
        "rerank_calls": first.stats.rerank_calls,
        "repeat": repeat,
        "cold": [
            {
                "concurrency": c,
                "seconds_median": round(statistics.median(r.stats.seconds for r in rs), 2),
                "seconds": [round(r.stats.seconds, 2) for r in rs],
                "phases_ms_median": {p: round(statistics.median(r.stats.phases_ms[p] for r in rs)) for p in PHASES},
                # the setting latency the sweep reports (queries in flight share the machine)
                "baseline_p50_ms_median": round(statistics.median(r.setting(r.baseline).p50_ms for r in rs), 1),
            }
            for c, rs in runs.items()
        ],
        "warm_s": round(warm_s, 2),
        "warm_pools_cached": warm.stats.pools_cached,
        "warm_rerank_cached": warm.stats.rerank_cached,
        "runs_differing": differing,
    }


def render_sweep(result: dict[str, Any]) -> str:
    lines = [
        f"sweep on {result['group']!r}: {result['queries']} queries x N {result['candidates']} x k {result['top_ks']}"
        f" x {result['rerankers']} = {result['settings']} settings; {result['pools_retrieved']} pools retrieved, "
        f"{result['rerank_calls']} reranker calls per cold sweep",
        f"cold (caches bypassed; median of {result['repeat']}):",
    ]
    for row in result["cold"]:
        split = ", ".join(f"{p} {ms / 1000:.1f}" for p, ms in row["phases_ms_median"].items() if ms)
        lines.append(
            f"  {row['concurrency']} in flight: {row['seconds_median']:.1f} s {row['seconds']}  "
            f"(phase seconds, summed over queries: {split}; baseline p50 {row['baseline_p50_ms_median']:.0f} ms)"
        )
    lines.append(
        f"warm (cached) repeat: {result['warm_s']:.1f} s ({result['warm_pools_cached']} pools, "
        f"{result['warm_rerank_cached']} reranker scores from the cache)"
    )
    lines.append(
        "rankings and metrics identical in every run"
        if result["runs_differing"] == 0
        else f"WARNING: {result['runs_differing']} runs differ from the first in rankings or metrics"
    )
    return "\n".join(lines)
