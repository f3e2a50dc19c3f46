"""`python -m benchmarks bench`: per-stage latency of the pipeline over a deal's labelled queries, beside
stock `graphiti.search_()` with the same recipe's config, so the pipeline's overhead is a measured ratio.

The deal's facts are held in memory first, as the dashboard holds them (`--no-hold`: the graph answers every
search, as a one-off CLI query does). Each query runs once through the pipeline and once through stock graphiti,
interleaved, after one warm-up query; figures are p50/p95 in milliseconds.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.api import Lab, make_reranker
from pipeline.api.models import DEFAULT_RECIPE, FirstStageName, Recipe
from pipeline.errors import InvalidInput

DEFAULT_DEPTHS = (10, 25, 50, 100)


@dataclass(frozen=True)
class Held:
    facts: int
    megabytes: float
    seconds: float  # the one read of the deal's facts


@dataclass(frozen=True)
class BenchRow:
    candidates: int
    queries: int
    stages: dict[str, dict[str, float]]  # stage -> {"p50": ms, "p95": ms}
    stock_search: dict[str, float] | None  # None: not run at this N (--stock-up-to)
    first_stage_ratio: float | None  # pipeline (embed + hybrid search) p50 / stock search_ p50


def _pct(values: list[float]) -> dict[str, float]:
    return {"p50": float(np.percentile(values, 50)), "p95": float(np.percentile(values, 95))}


async def bench(
    lab: Lab,
    group_id: str,
    depths: Sequence[int] = DEFAULT_DEPTHS,
    top_k: int = 10,
    reranker: str = "local",
    limit_queries: int | None = None,
    record: bool = True,
    queries: Sequence[str] | None = None,
    stock_up_to: int | None = None,
    first_stage: FirstStageName = "exact",
    recipe: Recipe | None = None,
    hold: bool = True,
) -> tuple[list[BenchRow], Held | None]:
    """Per-stage percentiles per depth over `queries` (default: the deal's labelled set) for one recipe (default:
    the default recipe); each timed run is also recorded in the run history (source "bench") when `record`. Stock
    `search_()` runs only at N up to `stock_up_to` (graphiti's own BFS takes many seconds a query at N=100 on the
    10,000-fact deal), and not for node distance without a given center (graphiti needs one)."""
    recipe = recipe or Recipe.preset(DEFAULT_RECIPE)
    if recipe.fusion == "node_distance" and recipe.center is None:
        stock_up_to = 0
    await lab.deal(group_id)
    if queries is None:
        query_set = lab.query_sets.load(group_id)
        if query_set is None:
            raise InvalidInput(f"Deal {group_id!r} has no labelled query set to benchmark with.")
        queries = [q.text for q in query_set.queries]
    make_reranker(reranker, lab.settings)  # reject an unknown name before any work
    queries = list(queries)[:limit_queries]
    top = min(top_k, max(depths))
    held = None
    if hold:
        started = time.perf_counter()
        found = await lab.retrieval.hold_facts(group_id)
        held = Held(found[0], found[1], time.perf_counter() - started) if found else None
    await lab.retrieval.retrieve(
        queries[0], group_id, max(depths), top, reranker, first_stage=first_stage, recipe=recipe
    )

    rows = []
    for depth in depths:
        stages: dict[str, list[float]] = {}
        stock: list[float] = []
        first_ms: list[float] = []
        for text in queries:
            lab.embedder.forget_queries()  # each run embeds its query, as a new query would
            k = min(top_k, depth)
            run = await lab.retrieval.retrieve(
                text, group_id, depth, k, reranker, first_stage=first_stage, recipe=recipe
            )
            if record:
                lab.history.save_run(run, "bench")
            for name, ms in run.timings.stages_ms.items():
                stages.setdefault(name, []).append(ms)
            first_ms.append(run.timings.stages_ms["embed_query"] + run.timings.stages_ms["hybrid_search"])
            if stock_up_to is not None and depth > stock_up_to:
                continue
            stock.append(await lab.retrieval.stock_search_ms(text, group_id, recipe, depth))
        rows.append(
            BenchRow(
                candidates=depth,
                queries=len(queries),
                stages={name: _pct(values) for name, values in stages.items()},
                stock_search=_pct(stock) if stock else None,
                first_stage_ratio=float(np.percentile(first_ms, 50) / np.percentile(stock, 50)) if stock else None,
            )
        )
    return rows, held


def render_bench(rows: list[BenchRow], reranker: str, recipe: str = DEFAULT_RECIPE, held: Held | None = None) -> str:
    names = [
        "embed_query",
        "bm25",
        "cosine",
        "bfs",
        "fusion",
        "hybrid_search",
        "rerank",
        "citations",
        "total",
    ]
    header = f"{'N':>4} " + " ".join(f"{n[:13]:>14}" for n in names) + f" {'stock search_':>14} {'ratio':>6}"
    memory = (
        f"{held.facts:,} facts held in memory ({held.megabytes:.1f} MB, read in {held.seconds:.1f} s)"
        if held
        else "facts not held: the graph answers every search"
    )
    lines = [f"p50 / p95 in ms, recipe={recipe}, reranker={reranker}; {memory}", header]
    for row in rows:
        cells = [
            f"{row.stages[n]['p50']:>6.1f}/{row.stages[n]['p95']:<7.1f}" if n in row.stages else f"{'-':>14}"
            for n in names
        ]
        stock, ratio = f"{'not run':>14}", f"{'-':>6}"
        if row.stock_search is not None and row.first_stage_ratio is not None:
            stock = f"{row.stock_search['p50']:>6.1f}/{row.stock_search['p95']:<7.1f}"
            ratio = f"{row.first_stage_ratio:>6.2f}"
        lines.append(f"{row.candidates:>4} " + " ".join(cells) + f" {stock} {ratio}")
    lines.append("ratio = pipeline first stage (embed + hybrid search) p50 / stock graphiti search_() p50")
    return "\n".join(lines)
