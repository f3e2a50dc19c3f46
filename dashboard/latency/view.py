"""The Latency & cost page body: percentiles per stage, cost per reranker, and the latency charts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from dashboard.common.shared_cache import shared_cache
from dashboard.common.text import md
from dashboard.latency import charts as latency_charts
from dashboard.latency.tables import never_reranked, show_costs, show_percentiles
from pipeline.api import on_store
from pipeline.api.models import RunFilter, Settings, StagePercentiles, Store, TimingTable


@dataclass(frozen=True)
class LatencyData:
    """Everything the page shows, computed once per rerun (no Streamlit in here: the benchmark times it)."""

    table: TimingTable  # the runs the figures and percentiles are over (warm ones, unless cold are included)
    stages: list[StagePercentiles]
    rerankers: list[dict[str, object]]
    figures: dict[str, go.Figure]
    runs: int = 0  # every matching run, cold ones too
    cold: int = 0  # of which cold: the first of their reranker on their deal in a process
    cold_p50: float | None = None  # their end-to-end p50, ms
    cold_shown: bool = False  # whether the figures include them (asked, or no warm run to show)


def latency_data(store: Store, settings: Settings, flt: RunFilter, include_cold: bool = False) -> LatencyData:
    """Load the filtered runs' timings and costs, aggregate them and build the figures. Cold runs (a process's
    first of each reranker on each deal: model loading, connections) are left out of the figures unless asked for,
    or unless every run is cold; how many there are and their p50 are kept to be said."""
    history = on_store(store).history
    everything = history.load_timings(flt)
    cold = everything.cold_mask
    cold_shown = include_cold or bool(cold.all())
    table = everything if cold_shown else everything.only(~cold)
    cold_p50 = float(history.percentiles(everything.stage("total")[cold], (50.0,))[0]) if cold.any() else None
    figures = {}
    if len(table):
        figures = {
            "stacked": latency_charts.stacked_stages(history.median_stages_by_reranker(table)),
            "histograms": latency_charts.histograms(table),
            "by_n": latency_charts.latency_by_candidates(table),
            "over_time": latency_charts.latency_over_time(table),
        }
    costs = history.load_costs(settings.rerank_prices_per_mtok, flt, settings.rerank_prices_per_1k_searches)
    return LatencyData(
        table,
        history.stage_percentiles(table),
        history.reranker_rows(table, costs),
        figures,
        len(everything),
        int(cold.sum()),
        cold_p50,
        cold_shown,
    )


def cached_latency_data(store: Store, settings: Settings, flt: RunFilter, include_cold: bool = False) -> LatencyData:
    """`latency_data`, rebuilt only when a run was recorded (or removed), the filters or the prices changed:
    a rerun that changes nothing reuses the aggregates and the four figures (most of the page's time)."""
    deployment = (str(settings.resolved_data_dir), tuple(settings.allowed_deals or ()))
    prices = (
        tuple(sorted(settings.rerank_prices_per_mtok.items())),
        tuple(sorted(settings.rerank_prices_per_1k_searches.items())),
    )
    return _latency_data(store, settings, flt, include_cold, deployment, prices, on_store(store).history.runs_stamp())


@shared_cache(max_entries=16)
def _latency_data(
    _store: Store,
    _settings: Settings,
    flt: RunFilter,
    include_cold: bool,
    deployment: object,
    prices: object,
    stamp: tuple[int, int],
) -> LatencyData:
    return latency_data(_store, _settings, flt, include_cold)


COLD_KEY = "latency.cold"
COLD_WHY = (
    "the first run of each reranker on each deal after its process started, which pays for loading the models, "
    "opening connections and compiling statements once (every `python -m pipeline query` is a process of its own)"
)


def _cold_note(data: LatencyData) -> None:
    """How many cold runs there are, what they cost, and whether the figures include them (a toggle)."""
    if not data.cold:
        return
    cold_p50 = f"{data.cold_p50:,.0f} ms" if data.cold_p50 is not None else "n/a"
    if data.cold == data.runs:
        st.caption(f"Every run here is cold ({COLD_WHY}): shown as they are; end-to-end p50 {cold_p50}.")
        return
    shown = "included below" if data.cold_shown else "left out of the figures below"
    st.caption(f"{data.cold:,} cold runs ({COLD_WHY}) are {shown}; their end-to-end p50 is {cold_p50}.")
    st.toggle("Include cold runs", key=COLD_KEY, help="Cold runs measure a process's start, not a query's cost.")


def render_latency(data: LatencyData) -> None:
    table = data.table
    total = next(s for s in data.stages if s.stage == "total")
    over_any = np.zeros(len(table), dtype=bool)
    for s in data.stages:
        if s.budget_ms is not None:
            over_any |= np.nan_to_num(table.stage(s.stage)) > s.budget_ms
    metrics = st.columns(5)
    metrics[0].metric("Runs", f"{data.runs:,}")
    metrics[1].metric("End to end p50", f"{total.p50:,.0f} ms")
    metrics[2].metric("End to end p95", f"{total.p95:,.0f} ms")
    metrics[3].metric("End to end p99", f"{total.p99:,.0f} ms")
    metrics[4].metric("Runs over a budget", f"{over_any.mean():.1%}")
    _cold_note(data)

    st.subheader("Per-stage percentiles")
    st.caption(
        "bm25, cosine and bfs run concurrently inside hybrid_search; fusion merges them. A percentile over its "
        "stage's budget is coloured and named under Over budget."
    )
    show_percentiles(data.stages)

    st.subheader("Latency and cost per reranker")
    st.caption(
        "Voyage tokens and Cohere searches at the prices in the settings (`rerank_prices_per_mtok`, dollars per "
        "million tokens; `rerank_prices_per_1k_searches`, dollars per 1,000 searches); the local re-scorer and no "
        "reranking cost $0."
    )
    show_costs(data.rerankers)
    fell_back = [r["reranker"] for r in data.rerankers if never_reranked(r)]
    if fell_back:
        st.caption(
            f"{md(', '.join(map(str, fell_back)))}: never reranked here, every run fell back to first-stage order "
            "(no API key set, or the service failed); the row's latencies are the first stage's."
        )
    unpriced = [r["reranker"] for r in data.rerankers if r["$ / query"] is None]
    if unpriced:
        names = md(", ".join(map(str, unpriced)))
        st.caption(
            f":orange[No price set for {names}]: add it to `rerank_prices_per_mtok` "
            "(or `rerank_prices_per_1k_searches` for a model billed per search)."
        )

    st.plotly_chart(data.figures["stacked"], key="latency.stacked")
    st.plotly_chart(data.figures["histograms"], key="latency.histograms")
    st.plotly_chart(data.figures["by_n"], key="latency.by_n")
    st.plotly_chart(data.figures["over_time"], key="latency.over_time")
