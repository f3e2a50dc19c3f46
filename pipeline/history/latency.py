"""Latency and cost aggregates over stored runs: pure numpy on arrays loaded once from SQLite.

`load_timings` pulls one row per run (SQLite pivots the per-stage rows); everything else works on the
resulting `TimingTable` with vectorised numpy: percentiles (`np.nanpercentile`, linear interpolation),
histograms (`np.histogram`), per-N and per-time-bucket percentiles. A stage a run did not have (no
rerank when the reranker is "none") is NaN and left out of that stage's figures.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from pipeline.history.records import STAGES, ModelUsage, RunFilter
from pipeline.history.repo import cold_run_ids, model_usage, stage_rows
from pipeline.rerankers.specs import is_free, traits
from pipeline.retrieval.records import BUDGETS_MS
from pipeline.store.db import Store

PERCENTILES = (50.0, 95.0, 99.0)
# the stages that follow one another in a run; bm25 / cosine / bfs / fusion run inside hybrid_search
SEQUENTIAL_STAGES = ("embed_query", "hybrid_search", "rerank", "citations")
BUDGETED_STAGES = tuple(BUDGETS_MS)  # hybrid_search, rerank, total


@dataclass(frozen=True)
class TimingTable:
    """One row per run; `ms[:, j]` is stage `stages[j]` in milliseconds (NaN where it did not run)."""

    run_ids: np.ndarray  # int64
    at_epoch: np.ndarray  # float64, seconds
    candidates: np.ndarray  # int64: each run's N
    reranker: np.ndarray  # object: "local", "voyage · rerank-2.5", ...
    ms: np.ndarray  # float64, shape (runs, stages)
    stages: tuple[str, ...] = STAGES
    cold: np.ndarray | None = None  # bool per run: the first of its reranker on its deal in a process; None: none

    def __len__(self) -> int:
        return len(self.run_ids)

    @property
    def cold_mask(self) -> np.ndarray:
        return self.cold if self.cold is not None else np.zeros(len(self), dtype=bool)

    def only(self, keep: np.ndarray) -> TimingTable:
        """The runs where `keep` is True."""
        return TimingTable(
            self.run_ids[keep],
            self.at_epoch[keep],
            self.candidates[keep],
            self.reranker[keep],
            self.ms[keep],
            self.stages,
            self.cold_mask[keep],
        )

    def stage(self, name: str) -> np.ndarray:
        return self.ms[:, self.stages.index(name)]

    # The charts' aggregates, as methods so a page draws them from the table it was handed.

    def by_candidates(self, stage: str) -> Series:
        return by_candidates(self, stage)

    def over_time(self, stage: str, bucket_s: int | None = None) -> Series:
        return over_time(self, stage, bucket_s)

    def histogram(self, stage: str, bins: int = 40, budget: float | None = None) -> Histogram:
        """The stage's histogram, its range cut at `histogram_upper` of the budget."""
        values = self.stage(stage)
        return histogram(values, bins, histogram_upper(values, budget))


def reranker_label(reranker: str, model: str) -> str:
    """'voyage · rerank-2.5' for hosted models; the plain name otherwise (the local model id is long)."""
    return f"{reranker} · {model}" if traits(reranker).hosted and model else reranker


def timing_table(rows: Sequence[tuple], stages: Sequence[str] = STAGES) -> TimingTable:
    """Rows from `pipeline.history.repo.stage_rows` as arrays."""
    if not rows:
        empty = np.empty(0)
        return TimingTable(
            empty.astype(np.int64),
            empty,
            empty.astype(np.int64),
            empty.astype(object),
            np.empty((0, len(stages))),
            tuple(stages),
        )
    columns = list(zip(*rows, strict=True))
    ms = np.array([row[5:] for row in rows], dtype=np.float64)  # None (stage did not run) becomes NaN
    return TimingTable(
        run_ids=np.asarray(columns[0], dtype=np.int64),
        at_epoch=np.asarray(columns[1], dtype=np.float64),
        candidates=np.asarray(columns[2], dtype=np.int64),
        reranker=np.array([reranker_label(r, m) for r, m in zip(columns[3], columns[4], strict=True)], dtype=object),
        ms=ms,
        stages=tuple(stages),
    )


def load_timings(store: Store, flt: RunFilter | None = None, stages: Sequence[str] = STAGES) -> TimingTable:
    """The matching runs' timings, each run marked cold or warm."""
    table = timing_table(stage_rows(store, flt, stages), stages)
    cold = np.isin(table.run_ids, np.fromiter(cold_run_ids(store, flt), dtype=np.int64))
    return replace(table, cold=cold)


# --- percentiles ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StagePercentiles:
    stage: str
    runs: int  # runs that had this stage
    p50: float
    p95: float
    p99: float
    mean: float
    budget_ms: float | None
    over_budget: float | None  # share of those runs over the budget, 0..1


def percentiles(values: np.ndarray, q: Sequence[float] = PERCENTILES, axis: int | None = None) -> np.ndarray:
    """numpy's percentiles (linear interpolation), ignoring NaN; NaN where nothing is left."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        shape = (len(q),) if axis is None else (len(q), *np.delete(values.shape, axis))
        return np.full(shape, np.nan)
    with warnings.catch_warnings():  # an all-NaN column (a stage no run had) gives NaN, said once here
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanpercentile(values, q, axis=axis)


def stage_percentiles(table: TimingTable, budgets: Mapping[str, float] = BUDGETS_MS) -> list[StagePercentiles]:
    """p50 / p95 / p99 of every stage in one vectorised call; stages no run had are left out."""
    present = ~np.isnan(table.ms)
    counts = present.sum(axis=0)
    keep = [j for j in range(len(table.stages)) if counts[j] > 0]
    if not keep:
        return []
    data = table.ms[:, keep]
    pct = np.nanpercentile(data, PERCENTILES, axis=0)
    means = np.nanmean(data, axis=0)
    out = []
    for i, j in enumerate(keep):
        name = table.stages[j]
        budget = budgets.get(name)
        column = data[:, i]
        over = float(np.mean(column[~np.isnan(column)] > budget)) if budget is not None else None
        out.append(
            StagePercentiles(
                name,
                int(counts[j]),
                float(pct[0, i]),
                float(pct[1, i]),
                float(pct[2, i]),
                float(means[i]),
                budget,
                over,
            )
        )
    return out


@dataclass(frozen=True)
class Series:
    """Percentiles of one stage along an x axis (N, or time buckets)."""

    x: np.ndarray
    p50: np.ndarray
    p95: np.ndarray
    runs: np.ndarray


def _grouped(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted unique keys, percentiles (len(PERCENTILES), groups), run counts) of `values` grouped by `keys`."""
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    unique, starts, counts = np.unique(keys, return_index=True, return_counts=True)
    pct = np.full((2, len(unique)), np.nan)
    for g, (start, count) in enumerate(zip(starts, counts, strict=True)):
        chunk = values[start : start + count]
        chunk = chunk[~np.isnan(chunk)]
        if chunk.size:
            pct[:, g] = np.percentile(chunk, (50.0, 95.0))
    return unique, pct, counts


def by_candidates(table: TimingTable, stage: str) -> Series:
    """p50 / p95 of a stage for each N the runs used."""
    n, pct, counts = _grouped(table.candidates, table.stage(stage))
    return Series(n, pct[0], pct[1], counts)


NICE_BUCKETS_S = (60, 300, 900, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 7 * 86400)


def bucket_seconds(span_s: float, target_buckets: int = 60) -> int:
    """The smallest 'nice' bucket (1 min ... 1 week) giving at most `target_buckets` buckets over the span."""
    for size in NICE_BUCKETS_S:
        if span_s / size <= target_buckets:
            return size
    return NICE_BUCKETS_S[-1]


def over_time(table: TimingTable, stage: str, bucket_s: int | None = None) -> Series:
    """p50 / p95 of a stage per time bucket; x is each bucket's start (epoch seconds)."""
    if not len(table):
        empty = np.empty(0)
        return Series(empty, empty, empty, empty.astype(np.int64))
    size = bucket_s or bucket_seconds(float(table.at_epoch.max() - table.at_epoch.min()))
    buckets = (table.at_epoch // size).astype(np.int64)
    keys, pct, counts = _grouped(buckets, table.stage(stage))
    return Series(keys.astype(np.float64) * size, pct[0], pct[1], counts)


@dataclass(frozen=True)
class Histogram:
    counts: np.ndarray
    edges: np.ndarray
    beyond: int  # runs slower than the last edge, left out so a few timeouts do not squash the rest


def histogram(values: np.ndarray, bins: int = 40, upper: float | None = None) -> Histogram:
    """Counts of the non-NaN values in `bins` equal bins from the minimum to `upper` (default: the maximum)."""
    values = values[~np.isnan(values)]
    if not values.size:
        return Histogram(np.zeros(0, dtype=np.int64), np.zeros(0), 0)
    low, high = float(values.min()), float(values.max())
    top = high if upper is None else max(min(upper, high), low)
    counts, edges = np.histogram(values, bins=bins, range=(low, top) if top > low else None)
    return Histogram(counts, edges, int((values > edges[-1]).sum()))


def histogram_upper(values: np.ndarray, budget: float | None) -> float | None:
    """Where a readable histogram stops: Tukey's far-out fence (Q3 + 3 IQR), or past the budget if that is further.

    Rare outliers such as 10 s reranker timeouts are then counted beside the chart instead of squashing it.
    """
    values = values[~np.isnan(values)]
    if not values.size:
        return None
    q1, q3 = np.percentile(values, (25.0, 75.0))
    return max(float(q3 + 3 * (q3 - q1)), (budget or 0.0) * 1.15)


def median_stages_by_reranker(table: TimingTable) -> dict[str, dict[str, float]]:
    """reranker label -> {sequential stage: p50 ms (0 when the stage did not run), "total": p50 ms}."""
    out: dict[str, dict[str, float]] = {}
    columns = [table.stages.index(s) for s in (*SEQUENTIAL_STAGES, "total")]
    for label in sorted(set(table.reranker.tolist())):
        rows = table.ms[table.reranker == label][:, columns]
        med = percentiles(rows, (50.0,), axis=0)[0]
        out[label] = {
            s: 0.0 if np.isnan(v) else float(v) for s, v in zip((*SEQUENTIAL_STAGES, "total"), med, strict=True)
        }
    return out


# --- cost ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CostRow:
    reranker: str  # the label: "none", "local", "voyage · rerank-2.5"
    runs: int
    tokens_per_query: float
    price_per_mtok: float | None  # None: billed per search, or a model with no price in the settings
    usd_per_query: float | None
    usd_per_1000: float | None
    fallbacks: int
    searches_per_query: float = 0.0
    price_per_1k_searches: float | None = None  # a model billed per search (Cohere)


def cost_rows(
    usage: Sequence[ModelUsage],
    prices_per_mtok: Mapping[str, float],
    prices_per_1k_searches: Mapping[str, float] | None = None,
) -> list[CostRow]:
    """Tokens (or searches) and dollars per query and per 1,000 queries at today's prices; a free
    reranker (its spec says so: local, none) costs $0.

    Usage rows with the same label (the local re-scorer under an older model id) are added together.
    """
    per_search_prices = prices_per_1k_searches or {}
    merged: dict[str, tuple[str, str, int, int, int, int]] = {}
    for u in usage:
        label = reranker_label(u.reranker, u.model)
        _, _, runs, tokens, fallbacks, searches = merged.get(label, (u.reranker, u.model, 0, 0, 0, 0))
        merged[label] = (
            u.reranker, u.model, runs + u.runs, tokens + u.tokens, fallbacks + u.fallbacks, searches + u.searches
        )  # fmt: skip
    rows = []
    for label, (reranker, model, runs, tokens, fallbacks, searches) in sorted(merged.items()):
        tokens_query = tokens / runs if runs else 0.0
        searches_query = searches / runs if runs else 0.0
        free = is_free(reranker)  # from its spec: free ones cost $0, whatever the price tables say
        per_search = None if free else per_search_prices.get(model)
        price = 0.0 if free else None if per_search is not None else prices_per_mtok.get(model)
        if per_search is not None:
            per_query: float | None = searches_query * per_search / 1000
        else:
            per_query = None if price is None else tokens_query * price / 1_000_000
        per_1000 = None if per_query is None else per_query * 1000
        rows.append(
            CostRow(label, runs, tokens_query, price, per_query, per_1000, fallbacks, searches_query, per_search)
        )
    return rows


def load_costs(
    store: Store,
    prices_per_mtok: Mapping[str, float],
    flt: RunFilter | None = None,
    prices_per_1k_searches: Mapping[str, float] | None = None,
) -> list[CostRow]:
    return cost_rows(model_usage(store, flt), prices_per_mtok, prices_per_1k_searches)


def reranker_rows(table: TimingTable, costs: Sequence[CostRow]) -> list[dict[str, object]]:
    """Latency and cost side by side, one row per reranker: what each choice costs in ms and in dollars."""
    total, rerank = table.stage("total"), table.stage("rerank")
    rows = []
    for cost in costs:
        mask = table.reranker == cost.reranker
        t50, t95 = percentiles(total[mask], (50.0, 95.0))
        r50, r95 = percentiles(rerank[mask], (50.0, 95.0))
        rows.append(
            {
                "reranker": cost.reranker,
                "runs": cost.runs,
                "p50 total": t50,
                "p95 total": t95,
                "p50 rerank": r50,
                "p95 rerank": r95,
                "tokens/query": cost.tokens_per_query,
                "$ / M tokens": cost.price_per_mtok,
                "searches/query": cost.searches_per_query,
                "$ / 1k searches": cost.price_per_1k_searches,
                "$ / query": cost.usd_per_query,
                "$ / 1k queries": cost.usd_per_1000,
                "fallbacks": cost.fallbacks,
            }
        )
    return rows
